// One MCP server process and the bench's client of it: every tool call under the bench's deadline,
// its answer kept as the text a model would be given (its bytes and o200k tokens), and, on close,
// the server's Chrome processes waited for and killed if they outlive it.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import type { BenchEnv } from '../../core/adapter.js';
import { chromeDescendants } from '../../core/procs.js';
import { withTimeout } from '../../core/timed-session.js';
import type { McpServerSpec } from './peers.js';

/**
 * A snapshot of the 10,000-row table is megabytes of JSON on one line; the SDK's stdio reader
 * refuses lines past 10 MiB by default.
 */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

// Building the encoder parses a multi-megabyte rank table: once per process.
let encoder: Tiktoken | undefined;
export function tokens(text: string): number {
  encoder ??= new Tiktoken(o200kBase);
  return encoder.encode(text).length;
}

/** One tool call as the client saw it. */
export interface Answer {
  readonly tool: string;
  /** The text parts of the result, joined by newlines: what lands in the agent's context. */
  readonly text: string;
  /** UTF-8 bytes of `text`. */
  readonly bytes: number;
  /** From sending the request to having the result, in ms. */
  readonly ms: number;
}

/** A tool answered with `isError`: the agent would have to change course. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

export class McpConnection {
  /** Every call made through this connection, in order. */
  readonly calls: Answer[] = [];
  private stderr = '';

  private constructor(
    readonly spec: McpServerSpec,
    private readonly client: Client,
    private readonly transport: StdioClientTransport,
    private readonly env: BenchEnv,
  ) {
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-4000);
    });
  }

  /**
   * Starts the server with the bench's Chromium and switches, `extraArgs` on top, and connects (the
   * browser starts with the first call that needs it).
   */
  static async open(spec: McpServerSpec, env: BenchEnv, extraArgs: readonly string[]): Promise<McpConnection> {
    const params = spec.params(env.launch, [...env.launch.args, ...extraArgs]);
    const transport = new StdioClientTransport({ ...params, maxBufferSize: MAX_LINE_BYTES });
    const client = new Client({ name: 'tendril-bench', version: '1.0.0' });
    const connection = new McpConnection(spec, client, transport, env);
    try {
      await withTimeout(`${spec.label}: connect`, env.opTimeoutMs, client.connect(transport));
    } catch (err) {
      await connection.close();
      throw new Error(`${(err as Error).message}${connection.stderrTail()}`);
    }
    return connection;
  }

  /** Calls `tool`; an answer with `isError` throws ToolError with its text. */
  async call(tool: string, args: Record<string, unknown> = {}): Promise<Answer> {
    const t0 = performance.now();
    const label = `${this.spec.label}: ${tool}`;
    const result = await withTimeout(
      label,
      this.env.opTimeoutMs,
      this.client.callTool({ name: tool, arguments: args }, { timeout: this.env.opTimeoutMs }),
    );
    const ms = performance.now() - t0;
    const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
    const text = content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('\n');
    const answer: Answer = { tool, text, bytes: Buffer.byteLength(text), ms };
    this.calls.push(answer);
    // Chrome processes are recorded as they appear, so the bench's exit can still kill them.
    this.env.reaper.snapshot();
    if (result.isError) throw new ToolError(`${tool} answered an error: ${text.split('\n')[0]!.slice(0, 300)}`);
    return answer;
  }

  /**
   * Closes the client (the server's stdin ends; the SDK sends SIGTERM, then SIGKILL, if it lingers)
   * and waits for the server's Chrome processes to exit, killing them after 10 s.
   */
  async close(): Promise<void> {
    const pid = this.transport.pid;
    const browsers = pid ? chromeDescendants(pid) : [];
    await this.client.close().catch(() => undefined);
    const { survivors } = await this.env.reaper.settle(browsers, 10_000);
    if (survivors.length)
      this.env.notes.push(`${this.spec.label}: ${survivors.length} Chrome process(es) outlived the server's exit and were killed.`);
  }

  /** The end of the server's stderr, for an error message. */
  stderrTail(): string {
    const tail = this.stderr.trim().split('\n').slice(-3).join(' | ');
    return tail ? ` (server stderr: ${tail.slice(-400)})` : '';
  }
}
