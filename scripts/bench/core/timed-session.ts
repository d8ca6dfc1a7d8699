// A session wrapped for measuring: each operation under the bench's deadline, its duration returned,
// and the Chrome processes it started recorded and, after close(), waited for, all outside the time.
import type { BenchAction, BenchEnv, BenchSession, LibraryAdapter, SchemaBuilder } from './adapter.js';
import type { ProcInfo } from './procs.js';

/** The bench's own deadline ran out (not a timeout of the library under test). */
export class BenchTimeoutError extends Error {
  override readonly name = 'BenchTimeoutError';
}

export function withTimeout<T>(label: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BenchTimeoutError(`${label} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * A session wrapped for measuring: each operation returns its own duration in ms, and the
 * bookkeeping around it (recording the Chrome process tree, waiting for it to exit after close)
 * happens outside the timed region.
 */
export class TimedSession {
  private procs: ProcInfo[] = [];
  /** Chrome processes that existed when init() started; set only while it runs. */
  private before: Set<number> | null = null;
  private open = false;

  constructor(
    readonly lib: LibraryAdapter,
    readonly raw: BenchSession,
    private readonly env: BenchEnv,
  ) {}

  /** Times `op` (which should call into `this.raw`) with the per-operation timeout applied. */
  async time(label: string, op: () => Promise<unknown>): Promise<number> {
    const t0 = performance.now();
    await withTimeout(`${this.lib.label} ${label}`, this.env.opTimeoutMs, op());
    const wall = performance.now() - t0;
    return this.raw.lastMs?.() ?? wall;
  }

  /** Times `op` and keeps what it resolved to; this session's Chrome processes are recorded after it. */
  private async step<T>(label: string, op: () => Promise<T>): Promise<{ ms: number; value: T }> {
    let value: T | undefined;
    try {
      const ms = await this.time(label, async () => {
        value = await op();
      });
      return { ms, value: value as T };
    } finally {
      this.track();
    }
  }

  /**
   * Records this session's Chrome processes. Another session's browser may be running alongside
   * (the extraction measurement keeps one per library), so a process counts as ours only if its
   * topmost Chrome ancestor is ours, or, while init() runs, started during init().
   */
  private track(): void {
    const now = this.env.reaper.snapshot();
    const byPid = new Map(now.map((p) => [p.pid, p]));
    const ours = new Set(this.procs.map((p) => p.pid));
    for (const p of now) {
      if (ours.has(p.pid)) continue;
      let root = p;
      while (byPid.has(root.ppid) && !ours.has(root.pid)) root = byPid.get(root.ppid)!;
      if (ours.has(root.pid) || (this.before && !this.before.has(root.pid))) {
        this.procs.push(p);
        ours.add(p.pid);
      }
    }
  }

  async init(): Promise<number> {
    this.open = true;
    this.before = new Set(this.env.reaper.snapshot().map((p) => p.pid));
    try {
      return (await this.step('init()', () => this.raw.init())).ms;
    } finally {
      this.before = null;
    }
  }

  async goto(url: string): Promise<number> {
    return (await this.step('goto()', () => this.raw.goto(url))).ms;
  }

  /** The library's `page.goto(url)` with its defaults (see `BenchSession.gotoDefault`). */
  async gotoDefault(url: string): Promise<number> {
    return (await this.step('goto()', () => this.raw.gotoDefault(url))).ms;
  }

  async extract(): Promise<{ ms: number; text: string }> {
    const { ms, value } = await this.step('extract()', () => this.raw.extractText());
    return { ms, text: value };
  }

  /** Times the library's `page.evaluate(expression)`; what it returns is not kept. */
  async evaluate(expression: string): Promise<number> {
    return (await this.step('evaluate()', () => this.raw.evaluate(expression))).ms;
  }

  async extractWithSchema(instruction: string, schema: SchemaBuilder): Promise<{ ms: number; value: unknown }> {
    return this.step('extract(instruction, schema)', () => this.raw.extractWithSchema(instruction, schema));
  }

  async act(action: BenchAction): Promise<{ ms: number; success: boolean }> {
    const { ms, value } = await this.step('act(action)', () => this.raw.act(action));
    return { ms, success: value.success };
  }

  /**
   * Times `close()`, then how long until every Chrome process of this session has exited
   * (`exited`, measured from the same start; NaN if some had to be killed). Libraries differ in
   * whether close() waits for the browser to exit, so both numbers are worth showing.
   */
  async close(): Promise<{ close: number; exited: number }> {
    this.track();
    this.open = false;
    const t0 = performance.now();
    let close: number;
    try {
      close = await this.time('close()', () => this.raw.close());
    } catch (err) {
      await this.reap();
      throw err;
    }
    const goneAt = await this.reap();
    return { close, exited: goneAt - t0 };
  }

  /** Best-effort close after a failure; never throws. */
  async dispose(): Promise<void> {
    if (this.open) {
      this.open = false;
      this.track();
      try {
        await withTimeout(`${this.lib.label} close()`, Math.min(this.env.opTimeoutMs, 15_000), this.raw.close());
      } catch {
        // the reaper below takes care of the browser
      }
    }
    await this.reap();
  }

  /** Waits for this session's Chrome processes to exit (killing stragglers); returns when they did. */
  private async reap(): Promise<number> {
    // Anything Chrome started since the last snapshot is still our child; include it too.
    this.track();
    const { survivors, goneAt } = await this.env.reaper.settle(this.procs);
    this.procs = [];
    if (survivors.length) {
      this.env.notes.push(`${this.lib.label}: ${survivors.length} Chrome process(es) were still alive 5 s after close() and were killed.`);
    }
    return goneAt;
  }
}

/** Runs `fn` with a fresh (not yet inited) session, and always leaves no browser behind. */
export async function withSession<T>(lib: LibraryAdapter, env: BenchEnv, fn: (s: TimedSession) => Promise<T>): Promise<T> {
  const session = new TimedSession(lib, lib.newSession(env.launch), env);
  try {
    return await fn(session);
  } finally {
    await session.dispose();
  }
}
