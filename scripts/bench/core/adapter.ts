// The one interface both libraries are driven through, so each measurement is written once.
import type { PeerCache } from './peer-cache.js';
import type { BenchModel, LaunchSpec } from './config.js';
import type { ChromeReaper } from './procs.js';
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
  // New measurements add the operations they need here and implement them in each of libraries/.
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

/** `make` of each builder, made once, so timed calls never include building a schema. */
export function perBuilder<T>(make: (build: SchemaBuilder) => T): (build: SchemaBuilder) => T {
  const made = new WeakMap<SchemaBuilder, T>();
  return (build) => {
    if (!made.has(build)) made.set(build, make(build));
    return made.get(build)!;
  };
}

/** Everything a measurement gets besides the library under test. */
export interface BenchEnv {
  readonly server: BenchServer;
  readonly launch: LaunchSpec;
  readonly reaper: ChromeReaper;
  readonly opTimeoutMs: number;
  /** Notes worth printing under the table (e.g. Chrome processes that outlived close()). */
  readonly notes: string[];
  /** The peers' kept results on the corpus (core/peer-cache.ts). */
  readonly peers: PeerCache;
}
