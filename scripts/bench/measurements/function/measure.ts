// The reference serverless function (examples/serverless) against the same function written on
// Stagehand 3.7.3 (stagehand-function.ts): how big each is once esbuild has bundled it into one file,
// and its cold start, which is a fresh Node process importing that file and answering one POST: a
// session on the local hosted server, `goto` a bench page, act(instruction), extract(instruction,
// z.string()), close().
//
// Both sessions come from the same hosted server (src/hosted/server, in this process), which launches
// the browser. Tendril's function talks to it directly; Stagehand's Browserbase client goes through a
// loopback proxy that renames its key header (header-proxy.ts). Both reach the same fake model.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { HEADERS } from '../../../../protocol/index.js';
import { readServerConfig } from '../../../../src/hosted/server/config.js';
import { startHostedServer, type HostedServer } from '../../../../src/hosted/server/http.js';
import { Logger } from '../../../../src/logger.js';
import type { FakeRequest } from '../../../../test/support/fake-model.js';
import { withTimeout } from '../../core/adapter.js';
import { bundleStagehandFunction, bundleTendrilFunction, measureExtensionEntry, type BuiltFunction } from './bundles.js';
import { startHeaderProxy, type HeaderProxy } from './header-proxy.js';
import { MODEL_NAME, sampleFor, startModelServer, type BenchModelServer } from '../../core/model.js';
import { errorText, type ComparisonContext, type Failed } from '../../core/measurement.js';
import { formatMs } from '../../core/stats.js';
import { ensureStagehandInstalled } from '../../libraries/stagehand.js';

export const FUNCTION_ID = 'function';
export const FUNCTION_PAGE = '/act.html';
/** The button act() is asked to click, by its accessible name (its line in both libraries' page text). */
const BUTTON = 'Add my vote';
/** What the function must answer once act() clicked the button once: the fake reads the counter. */
export const EXPECTED_DATA = 'votes: 1';
const API_KEY = 'bench-function-key';
const PROJECT_ID = 'bench';
const REGION = 'us-east-1';
/** Runs one cold start in a fresh process. */
export const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'child.mjs');
/** Stagehand's Browserbase client (a Stainless SDK) sends its key in this header. */
const BROWSERBASE_KEY_HEADER = 'x-bb-api-key';

/** One cold start, ms from the child's first line: until `import()` resolved, until the answer was read. */
export interface ColdStart {
  readonly importMs: number;
  readonly totalMs: number;
  /** Model requests that arrived during the run. */
  readonly modelRequests: number;
}

export type FunctionOutcome =
  | {
      readonly ok: true;
      readonly bytes: number;
      /** Timed runs only. */
      readonly coldStarts: readonly ColdStart[];
      /** Runs (warm-ups included) after which the function's session was still running. */
      readonly sessionsLeft: number;
      readonly runs: number;
    }
  | (Failed & { readonly bytes: number | null });

export interface FunctionRun {
  /** By library id. */
  readonly outcomes: ReadonlyMap<string, FunctionOutcome>;
  readonly pagePath: string;
  readonly modelName: string;
  /** What Stagehand's client asked of the hosted server through the proxy, e.g. "POST /v1/sessions → 201". */
  readonly proxied: readonly string[];
  readonly settings: { readonly iterations: number; readonly warmups: number };
  readonly notes: readonly string[];
  /** `tendril/extension` minified without the AI SDK, when Tendril ran; null if it did not build. */
  readonly extensionBytes?: number | null;
}

interface Instructions {
  readonly act: string;
  readonly extract: string;
}

const BUNDLERS: Record<string, (dir: string) => Promise<BuiltFunction>> = {
  tendril: bundleTendrilFunction,
  stagehand: bundleStagehandFunction,
};

/** Null when neither library is selected. */
export async function runFunction(ctx: ComparisonContext): Promise<FunctionRun | null> {
  const { env, opts, log } = ctx;
  const ids = ['tendril', 'stagehand'].filter((id) => ctx.libs.some((lib) => lib.id === id) || ctx.unavailable.has(id));
  if (!ids.length) return null;
  const label = (id: string) => ctx.libs.find((lib) => lib.id === id)?.label ?? id;
  const notes: string[] = [];
  const failures = new Map<string, string>();
  for (const id of ids) {
    const why = ctx.unavailable.get(id);
    if (why !== undefined) failures.set(id, why);
  }
  const fail = (id: string, why: string) => {
    failures.set(id, why);
    log(`${FUNCTION_ID} ${label(id)}: FAILED: ${why}`);
  };

  // Outside the repository: no node_modules above it, so a bundle that is not self-contained fails.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-bench-function-'));
  const built = new Map<string, BuiltFunction>();
  const coldStarts = new Map<string, ColdStart[]>(ids.map((id) => [id, []]));
  const sessionsLeft = new Map<string, number>(ids.map((id) => [id, 0]));
  const runs = new Map<string, number>(ids.map((id) => [id, 0]));
  const proxied = new Set<string>();
  const chromeBefore = new Set(env.reaper.snapshot().map((p) => p.pid));
  let extensionBytes: number | null | undefined;
  let current: Instructions | null = null;
  let model: BenchModelServer | null = null;
  let server: HostedServer | null = null;
  let proxy: HeaderProxy | null = null;
  try {
    for (const id of ids) {
      if (failures.has(id)) continue;
      try {
        if (id === 'stagehand') ensureStagehandInstalled(log);
        const t0 = performance.now();
        const fn = await BUNDLERS[id]!(dir);
        built.set(id, fn);
        log(`${FUNCTION_ID} ${label(id)}: bundled into ${fn.bytes} bytes in ${formatMs(performance.now() - t0)} ms`);
      } catch (err) {
        fail(id, `bundle: ${errorText(err)}`);
      }
    }
    if (ids.includes('tendril')) {
      try {
        extensionBytes = await measureExtensionEntry();
        log(`${FUNCTION_ID} ${label('tendril')}: tendril/extension is ${extensionBytes} bytes minified without the AI SDK`);
      } catch (err) {
        extensionBytes = null;
        notes.push(`tendril/extension did not build: ${errorText(err)}`);
      }
    }
    if (!built.size) return result();

    model = await startModelServer({ answer: (request) => answer(request, current) });
    server = await startHostedServer(
      readServerConfig({
        PORT: '0',
        HOSTED_API_KEYS: API_KEY,
        MAX_SESSIONS: '4',
        CHROME_PATH: env.launch.executablePath,
        CHROME_ARGS: env.launch.args.join(' '),
        // The bench pages are served on loopback, which hosted sessions reach only when allowed.
        HOSTED_ALLOW_NETWORKS: '127.0.0.0/8,::1',
      }),
      new Logger({ verbose: 0, disablePino: true }),
    );
    proxy = await startHeaderProxy(server.url, BROWSERBASE_KEY_HEADER, HEADERS.apiKey);
    const variables = functionVariables(env.server.url(FUNCTION_PAGE), model, server, proxy);

    let serial = 0;
    for (let i = 0; i < opts.warmups + opts.iterations; i++) {
      const timed = i >= opts.warmups;
      const phase = timed ? `${i - opts.warmups + 1}/${opts.iterations}` : `warm-up ${i + 1}`;
      const shown: string[] = [];
      for (const id of ids) {
        const fn = built.get(id);
        if (!fn || failures.has(id)) continue;
        // New instructions every run: the hosted server caches act and extract answers by instruction,
        // and a later run answered from that cache would skip the model call the first one made.
        const n = ++serial;
        current = { act: `Click the "${BUTTON}" button (bench run ${n})`, extract: `How many votes does the page show? (bench run ${n})` };
        runs.set(id, runs.get(id)! + 1);
        try {
          const sample = await coldStart(id, fn, variables[id]!(current), current, model, proxy, opts.opTimeoutMs);
          if (timed) coldStarts.get(id)!.push(sample);
          shown.push(`${label(id)} ${formatMs(sample.totalMs)} ms (import ${formatMs(sample.importMs)} ms)`);
        } catch (err) {
          fail(id, `${phase}: ${errorText(err)}`);
        } finally {
          current = null;
          const left = await releaseLeftovers(server);
          if (left) sessionsLeft.set(id, sessionsLeft.get(id)! + left);
          const { survivors } = await env.reaper.settle(env.reaper.snapshot().filter((p) => !chromeBefore.has(p.pid)));
          if (survivors.length) notes.push(`${FUNCTION_ID}: ${survivors.length} Chrome process(es) of a ${label(id)} session outlived its release and were killed.`);
        }
      }
      if (shown.length) log(`${FUNCTION_ID} ${phase}: ${shown.join(' | ')}`);
    }
    for (const call of proxy.calls) proxied.add(`${call.method} ${call.path.replace(/\/v1\/sessions\/[^/?]+/, '/v1/sessions/:id')} → ${call.status}`);
  } catch (err) {
    for (const id of ids) if (!failures.has(id)) fail(id, errorText(err));
  } finally {
    await proxy?.close();
    if (server) {
      await withTimeout('hosted server close()', 15_000, server.close()).catch((err: unknown) => {
        notes.push(`${FUNCTION_ID}: the hosted server did not close cleanly: ${errorText(err)}`);
      });
    }
    await model?.close();
    const { survivors } = await env.reaper.settle(env.reaper.snapshot().filter((p) => !chromeBefore.has(p.pid)));
    if (survivors.length) notes.push(`${FUNCTION_ID}: ${survivors.length} Chrome process(es) of the hosted server outlived its close() and were killed.`);
    rmSync(dir, { recursive: true, force: true });
  }
  return result();

  function result(): FunctionRun {
    const outcomes = new Map<string, FunctionOutcome>();
    for (const id of ids) {
      const bytes = built.get(id)?.bytes ?? null;
      const why = failures.get(id);
      outcomes.set(
        id,
        why !== undefined || bytes === null
          ? { ok: false, error: why ?? 'not bundled', bytes }
          : { ok: true, bytes, coldStarts: coldStarts.get(id)!, sessionsLeft: sessionsLeft.get(id)!, runs: runs.get(id)! },
      );
    }
    return {
      outcomes,
      pagePath: FUNCTION_PAGE,
      modelName: MODEL_NAME,
      proxied: [...proxied],
      settings: { iterations: opts.iterations, warmups: opts.warmups },
      notes,
      extensionBytes,
    };
  }
}

type Variables = Record<string, string>;

/** Each function's environment, as a platform would give it: its own variables and nothing else of ours. */
function functionVariables(page: string, model: BenchModelServer, server: HostedServer, proxy: HeaderProxy): Record<string, (i: Instructions) => Variables> {
  const base = (i: Instructions): Variables => ({
    ...(process.env.PATH ? { PATH: process.env.PATH } : {}),
    ...(process.env.HOME ? { HOME: process.env.HOME } : {}),
    TARGET_URL: page,
    ACT_INSTRUCTION: i.act,
    EXTRACT_INSTRUCTION: i.extract,
    MODEL_NAME: model.model.modelName,
    MODEL_API_KEY: model.model.apiKey,
    MODEL_BASE_URL: model.model.baseURL,
  });
  return {
    tendril: (i) => ({ ...base(i), HOSTED_API_KEY: API_KEY, HOSTED_PROJECT_ID: PROJECT_ID, HOSTED_API_URL: server.url, HOSTED_REGION: REGION }),
    stagehand: (i) => ({
      ...base(i),
      BROWSERBASE_API_KEY: API_KEY,
      BROWSERBASE_PROJECT_ID: PROJECT_ID,
      // Read by the Browserbase SDK itself (Stagehand passes it no base URL).
      BROWSERBASE_BASE_URL: proxy.url,
      BROWSERBASE_REGION: REGION,
    }),
  };
}

interface ChildResult {
  readonly importMs?: number;
  readonly totalMs?: number;
  readonly status?: number;
  readonly body?: string;
  readonly error?: string;
}

/** One run in a fresh process, and every check on what it answered (each failure throws). */
async function coldStart(
  id: string,
  fn: BuiltFunction,
  variables: Variables,
  instructions: Instructions,
  model: BenchModelServer,
  proxy: HeaderProxy,
  timeoutMs: number,
): Promise<ColdStart> {
  const requestsBefore = model.fake.requests.length;
  const callsBefore = proxy.calls.length;
  const child = await runChild(fn.file, variables, timeoutMs);
  if (child.error !== undefined) throw new Error(`the function threw: ${child.error.split('\n')[0]}`);
  const body = child.body ?? '';
  if (child.status !== 200) throw new Error(`the function answered ${child.status}: ${body.slice(0, 300)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Error(`the function answered 200 with a body that is not JSON: ${body.slice(0, 120)}`);
  }
  if (JSON.stringify(parsed) !== JSON.stringify({ ok: true, data: EXPECTED_DATA })) {
    throw new Error(`the function answered 200 ${body.slice(0, 200)}, not {"ok":true,"data":"${EXPECTED_DATA}"}`);
  }
  const requests = model.fake.requests.slice(requestsBefore);
  if (!requests.some((r) => r.prompt.includes(instructions.act))) throw new Error('act() sent the model no request with its instruction');
  if (id === 'stagehand' && !proxy.calls.slice(callsBefore).some((c) => c.method === 'POST' && c.path === '/v1/sessions' && c.status === 201)) {
    throw new Error('Stagehand did not create its session through the header proxy');
  }
  return { importMs: child.importMs!, totalMs: child.totalMs!, modelRequests: requests.length };
}

function runChild(file: string, variables: Variables, timeoutMs: number): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, pathToFileURL(file).href, 'POST'], {
      cwd: path.dirname(file),
      env: variables,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').at(-1) ?? '';
      try {
        resolve(JSON.parse(line) as ChildResult);
      } catch {
        const why = err.trim().split('\n').slice(-3).join(' ') || out.trim().slice(-200) || 'no output';
        reject(new Error(`the process exited (${signal ?? `code ${code}`}) without a result: ${why}`));
      }
    });
  });
}

/** Ends whatever session a run left running (untimed); returns how many there were. */
async function releaseLeftovers(server: HostedServer): Promise<number> {
  const left = server.sessions.runningIds();
  for (const id of left) await server.sessions.release(id).catch(() => undefined);
  return left.length;
}

/**
 * The fake model's answers where a value made up from the schema will not do. act (either library's
 * schema has an `elementId`): the vote button's id, read from the page text in the request, and
 * "click". extract (a `value` property, the wrapper both put around z.string()): the counter as the
 * page text in the request shows it, so the function's data says whether act() really clicked.
 * Anything else (Stagehand's metadata request) is left to `sampleFor`.
 */
function answer(request: FakeRequest, current: Instructions | null): unknown {
  const schema = request.schema as { properties?: Record<string, unknown> } | undefined;
  if (!current || !schema) return undefined;
  if (JSON.stringify(schema).includes('"elementId"') && request.prompt.includes(current.act)) {
    const id = new RegExp(String.raw`\[([^\]\s]+)\][^\n]*${BUTTON}`).exec(request.prompt)?.[1];
    if (!id) throw new Error(`fake model (bench): no "${BUTTON}" button in the page text of the act request`);
    return chooseElement(sampleFor(schema as Parameters<typeof sampleFor>[0]), id);
  }
  if (schema.properties?.value !== undefined && request.prompt.includes(current.extract)) {
    const count = /Votes so far:[\s\S]{0,200}?(?<![\w-])(\d+)(?![\w-])/.exec(request.prompt)?.[1];
    return { value: count === undefined ? 'no vote counter in the page text' : `votes: ${count}` };
  }
  return undefined;
}

/** `sample` with every object that names an element (Tendril's answer itself, Stagehand's `action`) set to `id`. */
function chooseElement(sample: unknown, id: string): unknown {
  if (Array.isArray(sample)) return sample.map((item) => chooseElement(item, id));
  if (!sample || typeof sample !== 'object') return sample;
  if ('elementId' in sample) return { ...sample, elementId: id, method: 'click', arguments: [], description: `the "${BUTTON}" button` };
  return Object.fromEntries(Object.entries(sample).map(([key, value]) => [key, chooseElement(value, id)]));
}
