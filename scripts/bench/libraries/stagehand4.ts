// Stagehand 4.4.0, installed into a scratch folder on demand together with a node 22 binary (it
// needs Node >= 22.18 and a global WebSocket; the bench runs on Node 20), and driven in a child
// process (`stagehand4-child.mjs`) over JSON lines on stdio.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  perBuilder,
  type BenchSession,
  type LibraryAdapter,
  type SchemaBuilder,
  type SessionOptions,
  type ZodApi,
} from '../core/adapter.js';
import { SCRATCH_ROOT, STAGEHAND4_DEADLINE_MS, type BenchModel, type LaunchSpec } from '../core/config.js';
import { ensureScratch, esmEntry, installedVersion } from '../core/scratch.js';
import { BenchTimeoutError } from '../core/timed-session.js';

export const STAGEHAND4_VERSION = '4.4.0';
const PACKAGE = '@browserbasehq/stagehand';
const NODE_SPEC = 'node@22';
export const SCRATCH4 = path.join(SCRATCH_ROOT, `stagehand-${STAGEHAND4_VERSION}`);
const NODE_BIN = path.join(SCRATCH4, 'node_modules', '.bin', process.platform === 'win32' ? 'node.cmd' : 'node');
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'stagehand4-child.mjs');
/** Stagehand 4.4.0's own floor (its package.json `engines`). */
const MIN_NODE: readonly [number, number] = [22, 18];

const CLOSE_DEADLINE_MS = 15_000;
/** Deadline of one model request sent for the child (the child's own is the same: GEN_TIMEOUT_MS). */
const MODEL_DEADLINE_MS = 60_000;

/** `v22.23.3` from the scratch node binary, or null if it does not run. */
function nodeVersion(): string | null {
  if (!existsSync(NODE_BIN)) return null;
  const r = spawnSync(NODE_BIN, ['--version'], { encoding: 'utf8', timeout: 15_000 });
  return r.status === 0 ? r.stdout.trim() : null;
}

function nodeIsRecentEnough(version: string | null): boolean {
  const m = /^v(\d+)\.(\d+)/.exec(version ?? '');
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
}

/** Installs Stagehand 4.4.0 and node 22 into .bench/stagehand-4.4.0/ unless that is already done. */
export function ensureStagehand4Installed(log: (line: string) => void): void {
  ensureScratch(
    {
      dir: SCRATCH4,
      name: 'tendril-bench-stagehand4',
      specs: [`${PACKAGE}@${STAGEHAND4_VERSION}`, NODE_SPEC],
      problem: () => {
        if (installedVersion(PACKAGE, SCRATCH4) !== STAGEHAND4_VERSION)
          return `npm install finished but ${PACKAGE}@${STAGEHAND4_VERSION} is not resolvable from ${SCRATCH4}`;
        const version = nodeVersion();
        return nodeIsRecentEnough(version)
          ? null
          : `${NODE_BIN} is ${version ?? 'not runnable'}; Stagehand ${STAGEHAND4_VERSION} needs Node >= ${MIN_NODE.join('.')}`;
      },
      detail: () => ` (node ${nodeVersion()})`,
    },
    log,
  );
}

/** A schema recorded from a `SchemaBuilder` as data, so the child can rebuild it with its own zod. */
type SchemaNode =
  | { kind: 'object'; shape: Record<string, SchemaNode> }
  | { kind: 'string' }
  | { kind: 'describe'; inner: SchemaNode; description: string }
  | { kind: 'optional'; inner: SchemaNode };

const NODE = Symbol('schema node');
type Recorded = { [NODE]: SchemaNode };

function recordString(node: SchemaNode): Recorded & ReturnType<ZodApi['string']> {
  return {
    [NODE]: node,
    describe: (description: string) => recordString({ kind: 'describe', inner: node, description }),
    optional: () => ({ [NODE]: { kind: 'optional', inner: node } }),
  };
}

export function recordSchema(build: SchemaBuilder): SchemaNode {
  const recorder: ZodApi = {
    object: (shape) => ({
      [NODE]: {
        kind: 'object',
        shape: Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, (v as Recorded)[NODE]])),
      },
    }),
    string: () => recordString({ kind: 'string' }),
  };
  const node = (build(recorder) as Recorded)[NODE];
  if (!node) throw new Error('the schema builder used something the Stagehand 4.4.0 adapter cannot record');
  return node;
}

/** What Stagehand 4.4.0's `model.generate` callback is given (the part the bench reads). */
interface GenerateRequest {
  readonly messages: ReadonlyArray<{
    role: string;
    content: { type: string; text?: string } | ReadonlyArray<{ type: string; text?: string }>;
  }>;
  readonly systemPrompt?: string;
  readonly responseFormat?: { type: string; name?: string; schema?: unknown };
}

/**
 * Answers one generate request with the bench's fake model, sent through `model.fetch` as an
 * OpenAI Responses request, so it is timed, counted and tokenised like the other libraries' requests.
 */
async function askFakeModel(model: BenchModel, request: GenerateRequest): Promise<unknown> {
  const input = request.messages.map((m) => ({
    role: m.role,
    content: (Array.isArray(m.content) ? m.content : [m.content])
      .filter((c) => c.type === 'text')
      .map((c) => ({ type: m.role === 'assistant' ? 'output_text' : 'input_text', text: c.text ?? '' })),
  }));
  const format =
    request.responseFormat?.type === 'json_schema'
      ? { type: 'json_schema', name: request.responseFormat.name ?? 'response', schema: request.responseFormat.schema, strict: true }
      : { type: 'text' };
  const res = await (model.fetch ?? fetch)(`${model.baseURL}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${model.apiKey}` },
    body: JSON.stringify({ model: model.modelName.replace(/^openai\//, ''), instructions: request.systemPrompt, input, text: { format } }),
    // The child gives up on it after as long; nothing here may wait longer.
    signal: AbortSignal.timeout(MODEL_DEADLINE_MS),
  });
  if (!res.ok) throw new Error(`fake model answered HTTP ${res.status}`);
  const body = (await res.json()) as { output?: Array<{ content?: Array<{ text?: string }> }> };
  const text = body.output?.[0]?.content?.[0]?.text ?? '';
  const content = [{ type: 'text', text }];
  if (format.type !== 'json_schema') return { role: 'assistant', content, outputFormat: 'text' };
  return { role: 'assistant', content, outputFormat: 'json_schema', structuredContent: JSON.parse(text) as unknown };
}

interface Reply {
  readonly id?: number;
  readonly ok?: boolean;
  readonly result?: unknown;
  readonly ms?: number;
  readonly error?: string;
  readonly gen?: number;
  readonly request?: GenerateRequest;
  readonly ready?: boolean;
}

/** One child process holding one Stagehand 4.4.0 client. */
class Child {
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  private exited: Error | null = null;
  get gone(): boolean {
    return this.exited !== null;
  }
  private readonly ready: Promise<void>;
  /** The child's own time of the last operation that resolved, ms. */
  lastMs: number | undefined;

  constructor(
    entry: string,
    zodEntry: string,
    private readonly model: BenchModel | undefined,
  ) {
    this.proc = spawn(NODE_BIN, [CHILD, entry, zodEntry], { stdio: ['pipe', 'pipe', 'pipe'] });
    // The child must not outlive the bench (it closes its browser when its stdin closes; this is
    // for a bench that exits without closing it).
    const kill = () => this.proc.kill('SIGKILL');
    process.once('exit', kill);
    let markReady: () => void = () => {};
    this.ready = new Promise((resolve) => (markReady = resolve));
    const stderr: string[] = [];
    this.proc.stderr.on('data', (chunk: Buffer) => {
      stderr.push(chunk.toString());
      if (stderr.length > 20) stderr.shift();
    });
    this.proc.on('exit', (code, signal) => {
      process.removeListener('exit', kill);
      const tail = stderr.join('').trim().split('\n').slice(-3).join(' | ');
      this.exited = new Error(`Stagehand ${STAGEHAND4_VERSION} child exited (${signal ?? `code ${code}`})${tail ? `: ${tail}` : ''}`);
      for (const p of this.pending.values()) p.reject(this.exited);
      this.pending.clear();
      markReady();
    });
    createInterface({ input: this.proc.stdout }).on('line', (line) => {
      // Stagehand logs to stdout too; only our JSON objects are messages.
      if (!line.startsWith('{')) return;
      let msg: Reply;
      try {
        msg = JSON.parse(line) as Reply;
      } catch {
        return;
      }
      if (msg.ready) markReady();
      else if (msg.gen !== undefined) void this.answer(msg.gen, msg.request!);
      else if (msg.id !== undefined) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        p?.resolve(msg);
      }
    });
  }

  private async answer(gen: number, request: GenerateRequest): Promise<void> {
    let out: Record<string, unknown>;
    try {
      if (!this.model) throw new Error('this session has no model');
      out = { gen, ok: true, reply: await askFakeModel(this.model, request) };
    } catch (err) {
      out = { gen, ok: false, error: err instanceof Error ? err.message : String(err) };
    }
    if (!this.exited) this.proc.stdin.write(`${JSON.stringify(out)}\n`);
  }

  /** Sends one request; it fails after `deadlineMs` (the child is then killed: its state is unknown). */
  async call(op: string, args: Record<string, unknown> = {}, deadlineMs = STAGEHAND4_DEADLINE_MS): Promise<unknown> {
    await this.ready;
    if (this.exited) throw this.exited;
    const id = this.nextId++;
    this.lastMs = undefined;
    let timer: NodeJS.Timeout | undefined;
    const reply = await new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      timer = setTimeout(() => {
        this.pending.delete(id);
        this.proc.kill('SIGKILL');
        reject(new BenchTimeoutError(`Stagehand ${STAGEHAND4_VERSION} ${op} did not answer within ${deadlineMs} ms (child killed)`));
      }, deadlineMs);
      this.proc.stdin.write(`${JSON.stringify({ id, op, ...args })}\n`);
    }).finally(() => clearTimeout(timer));
    if (!reply.ok) throw new Error(reply.error ?? `${op} failed`);
    this.lastMs = reply.ms;
    return reply.result;
  }

  /** Ends the child: closing stdin makes it close its browser and exit; killed if it does not. */
  async end(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.proc.once('exit', () => resolve()));
    this.proc.stdin.end();
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(timer);
  }
}

export async function loadStagehand4(log: (line: string) => void): Promise<LibraryAdapter> {
  ensureStagehand4Installed(log);
  const entry = esmEntry(PACKAGE, SCRATCH4);
  const zodEntry = esmEntry('zod', path.dirname(entry));
  const schemaFor = perBuilder(recordSchema);

  return {
    id: 'stagehand4',
    label: `Stagehand ${STAGEHAND4_VERSION}`,
    newSession(launch: LaunchSpec, options: SessionOptions = {}): BenchSession {
      let child: Child | null = null;
      let modelMs: number | undefined;
      const live = (): Child => {
        if (!child) throw new Error('init() first');
        return child;
      };
      return {
        // The child times each operation itself, so the pipe is not counted.
        lastMs: () => child?.lastMs,
        lastModelMs: () => modelMs,
        async init() {
          child = new Child(entry, zodEntry, options.model);
          await child.call('init', {
            executablePath: launch.executablePath,
            args: [...launch.args],
            headless: true,
            withModel: options.model !== undefined,
          });
        },
        goto: async (url) => void (await live().call('goto', { url, waitUntil: 'load' })),
        gotoDefault: async (url) => void (await live().call('goto', { url })),
        // 4.4.0 has no page-text extract(); its accessibility snapshot (iframes included) is the
        // text its own extract(instruction) sends the model.
        extractText: async () => (await live().call('pageText', { timeoutMs: STAGEHAND4_DEADLINE_MS })) as string,
        async extractWithSchema(instruction, build) {
          modelMs = undefined;
          const out = (await live().call('extract', { instruction, schema: schemaFor(build) })) as { data: unknown; modelMs: number };
          modelMs = out.modelMs;
          return out.data;
        },
        act: async (action) =>
          (await live().call('act', { action: { ...action, arguments: [...action.arguments] } })) as { success: boolean },
        evaluate: (expression) => live().call('evaluate', { expression }),
        async close() {
          const c = child;
          if (!c || c.gone) return;
          try {
            // Shorter than other requests: a child stuck in an earlier operation holds this one
            // behind it, and after a failure the bench wants the browser gone, not waited for.
            await c.call('close', {}, CLOSE_DEADLINE_MS);
          } finally {
            const ms = c.lastMs;
            await c.end();
            c.lastMs = ms;
          }
        },
      };
    },
  };
}
