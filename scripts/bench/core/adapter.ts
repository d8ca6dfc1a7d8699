// The one interface both libraries are driven through, so each measurement is written once.
import type { BenchModel, LaunchSpec } from './config.js';
import type { ChromeReaper, ProcInfo } from './procs.js';
import type { BenchServer } from './server.js';

/** One client of one library: a browser it launches, drives and closes. */
export interface BenchSession {
  /** Launches Chrome and connects; afterwards the client has one page. */
  init(): Promise<void>;
  /** Navigates the client's first page and resolves once the main frame's `load` event fired. */
  goto(url: string): Promise<void>;
  /**
   * Navigates the client's first page with the library's own `page.goto(url)`, no options: it
   * resolves whenever that library's default says the page is ready.
   */
  gotoDefault(url: string): Promise<void>;
  /** `extract()` without arguments: the text of the client's current page (`pageText`). */
  extractText(): Promise<string>;
  /**
   * `extract(instruction, schema)` with the model given to `newSession`; the adapter builds the
   * schema with its library's own zod.
   */
  extractWithSchema(instruction: string, schema: SchemaBuilder): Promise<unknown>;
  /** `act(action)` with an observe() result; resolves to the library's ActResult. */
  act(action: BenchAction): Promise<{ success: boolean }>;
  /** Evaluates `expression` in the current page's main world, through the library's own page. */
  evaluate(expression: string): Promise<unknown>;
  /**
   * With `watchDialogs`: every JavaScript dialog the client's pages opened so far, oldest first,
   * as far as the library lets one see them without answering them.
   */
  dialogs?(): readonly DialogSeen[];
  /** Closes the client and the browser it launched. */
  close(): Promise<void>;
  /**
   * The duration of the operation that resolved last, as the library's own process measured it
   * (ms), for an adapter that drives its library in another process: `TimedSession` then reports
   * it instead of its own wall time, so the pipe between the two is not counted.
   */
  lastMs?(): number | undefined;
  /**
   * For the same kind of adapter: how long the last `extractWithSchema` waited for its model, as the
   * library's process measured it (the bench's model answer plus the pipe both ways), ms.
   */
  lastModelMs?(): number | undefined;
  // New measurements add the operations they need here and implement them in tendril.ts and
  // stagehand.ts.
}

/** An observe() result, the shape both libraries' act(action) takes. */
export interface BenchAction {
  readonly selector: string;
  readonly description: string;
  readonly method: string;
  readonly arguments: readonly string[];
}

export interface LibraryAdapter {
  /** Short id used by --only and in logs: "tendril" | "stagehand". */
  readonly id: string;
  /** Column heading, e.g. "Stagehand 3.7.3". */
  readonly label: string;
  newSession(launch: LaunchSpec, options?: SessionOptions): BenchSession;
}

export interface SessionOptions {
  /** Given to the library's constructor; needed by extractWithSchema (act takes it as a tripwire). */
  readonly model?: BenchModel;
  /** Record the JavaScript dialogs the pages open (`BenchSession.dialogs`), changing nothing else. */
  readonly watchDialogs?: boolean;
}

/** A JavaScript dialog a page opened. */
export interface DialogSeen {
  /** "alert", "confirm", "prompt" or "beforeunload". */
  readonly type: string;
  /** Its text, cut to 100 characters. */
  readonly message: string;
  /** Nobody has answered it yet (so the page's main thread is waiting for it). */
  readonly open: boolean;
}

/** The slice of zod (3 and 4 alike) a bench schema is written with. */
export interface ZodApi {
  object(shape: Record<string, unknown>): unknown;
  string(): ZodStringApi;
}
interface ZodStringApi {
  describe(description: string): ZodStringApi;
  optional(): unknown;
}
/** Builds one schema with whichever zod it is given, so each library gets one made by its own zod. */
export type SchemaBuilder = (z: ZodApi) => unknown;

/** Everything a measurement gets besides the library under test. */
export interface BenchEnv {
  readonly server: BenchServer;
  readonly launch: LaunchSpec;
  readonly reaper: ChromeReaper;
  readonly opTimeoutMs: number;
  /** Notes worth printing under the table (e.g. Chrome processes that outlived close()). */
  readonly notes: string[];
}

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
      return await this.time('init()', () => this.raw.init());
    } finally {
      this.track();
      this.before = null;
    }
  }

  async goto(url: string): Promise<number> {
    try {
      return await this.time('goto()', () => this.raw.goto(url));
    } finally {
      this.track();
    }
  }

  /** The library's `page.goto(url)` with its defaults (see `BenchSession.gotoDefault`). */
  async gotoDefault(url: string): Promise<number> {
    try {
      return await this.time('goto()', () => this.raw.gotoDefault(url));
    } finally {
      this.track();
    }
  }

  async extract(): Promise<{ ms: number; text: string }> {
    let text = '';
    try {
      const ms = await this.time('extract()', async () => {
        text = await this.raw.extractText();
      });
      return { ms, text };
    } finally {
      this.track();
    }
  }

  /** Times the library's `page.evaluate(expression)`; what it returns is not kept. */
  async evaluate(expression: string): Promise<number> {
    try {
      return await this.time('evaluate()', () => this.raw.evaluate(expression));
    } finally {
      this.track();
    }
  }

  async extractWithSchema(instruction: string, schema: SchemaBuilder): Promise<{ ms: number; value: unknown }> {
    let value: unknown;
    try {
      const ms = await this.time('extract(instruction, schema)', async () => {
        value = await this.raw.extractWithSchema(instruction, schema);
      });
      return { ms, value };
    } finally {
      this.track();
    }
  }

  async act(action: BenchAction): Promise<{ ms: number; success: boolean }> {
    let success = false;
    try {
      const ms = await this.time('act(action)', async () => {
        ({ success } = await this.raw.act(action));
      });
      return { ms, success };
    } finally {
      this.track();
    }
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
      this.env.notes.push(
        `${this.lib.label}: ${survivors.length} Chrome process(es) were still alive 5 s after close() and were killed.`,
      );
    }
    return goneAt;
  }
}

/** Runs `fn` with a fresh (not yet inited) session, and always leaves no browser behind. */
export async function withSession<T>(
  lib: LibraryAdapter,
  env: BenchEnv,
  fn: (s: TimedSession) => Promise<T>,
): Promise<T> {
  const session = new TimedSession(lib, lib.newSession(env.launch), env);
  try {
    return await fn(session);
  } finally {
    await session.dispose();
  }
}
