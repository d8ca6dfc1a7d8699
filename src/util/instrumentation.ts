// The one seam every public call and model request passes through: a call is described once, and
// each listener on (OpenTelemetry's spans, util/tracing.ts; a context's trace recorder, trace/)
// wraps it. The seam knows no listener: they add themselves. With none on, a call costs one check.

/** What a call is, as its caller describes it (only when some listener is on). */
export interface CallDescription {
  /** The class and method, as the trace viewer groups them: `Page.goto`, `Sdk.extract`, `Locator.click`, `Model.request`. */
  readonly api: string;
  /** What a person reads first: `extract: the product's price`, `goto https://…`. */
  readonly title: string;
  /** The call's arguments, as they may be shown (a listener redacts what it writes). */
  readonly params: Record<string, unknown>;
  /** The page the call works on, when it has one (a listener that needs the driver's page checks it). */
  readonly page?: object;
  /** The call this one is part of, when the caller knows it (a model request's operation). */
  readonly parent?: Call;
  /** Facts for one listener (the OpenTelemetry one reads `env` and `metrics`). */
  readonly details?: Record<string, unknown>;
  /**
   * A call that never contains another (a model request): it stays off the stack of open calls, so
   * that what runs while it does (the tools a streamed answer calls) nests under its caller, not it.
   */
  readonly leaf?: boolean;
}

/** A call under way: its description, an id and when it started. */
export interface Call extends CallDescription {
  readonly id: number;
  readonly startedAt: number;
  /** What the call learnt on the way that its result does not say (a model request's answer, tokens...). */
  readonly notes: Record<string, unknown>;
}

/** A listener wraps each call: it runs `next` exactly once and returns what it returns (or throws what it throws). */
export interface InstrumentationListener {
  around<T>(call: Call, next: () => Promise<T>): Promise<T>;
}

let nextId = 1;
const global: InstrumentationListener[] = [];

/** A listener for every call in the process (OpenTelemetry's). Returns its removal. */
export function addGlobalListener(listener: InstrumentationListener): () => void {
  global.push(listener);
  return () => {
    const at = global.indexOf(listener);
    if (at >= 0) global.splice(at, 1);
  };
}

/**
 * The seam of one scope (a browser context): the process's listeners, then the scope's own. Calls
 * open in it form a stack, so a call started inside another one (a locator action inside a group, a
 * step inside an agent run) names it as its parent; two calls run at once on one context nest under
 * whichever started first.
 */
export class Instrumentation {
  readonly #own: InstrumentationListener[] = [];
  readonly #open: Call[] = [];

  /** Adds a listener of this scope's calls; returns its removal. */
  add(listener: InstrumentationListener): () => void {
    this.#own.push(listener);
    return () => {
      const at = this.#own.indexOf(listener);
      if (at >= 0) this.#own.splice(at, 1);
    };
  }

  /** True when some listener would see a call (the only work a call does when none would). */
  get on(): boolean {
    return this.#own.length > 0 || global.length > 0;
  }

  /** The innermost call open now, if any. */
  current(): Call | undefined {
    return this.#open.at(-1);
  }

  /** Runs `work` as the call `describe()` describes, through every listener on. */
  run<T>(describe: () => CallDescription, work: (call: Call | undefined) => Promise<T>): Promise<T> {
    if (this.#own.length === 0 && global.length === 0) return work(undefined);
    const call = this.#start(describe());
    return this.#through(call, () => work(call)).finally(() => this.#close(call));
  }

  /** Opens a call that ends when `end()` is called (tracing.group): later calls nest under it. */
  open(description: CallDescription): { call: Call; end: (result?: unknown) => void } {
    let finish!: (result?: unknown) => void;
    const ended = new Promise<unknown>((resolve) => (finish = resolve));
    const call = this.#start(description);
    void this.#through(call, () => ended);
    return {
      call,
      end: (result) => {
        // Closed at once, so that the next call does not nest under it.
        this.#close(call);
        finish(result);
      },
    };
  }

  #start(description: CallDescription): Call {
    const call: Call = { ...description, parent: description.parent ?? this.#open.at(-1), id: nextId++, startedAt: Date.now(), notes: {} };
    if (!description.leaf) this.#open.push(call);
    return call;
  }

  #through<T>(call: Call, work: () => Promise<T>): Promise<T> {
    const listeners = [...global, ...this.#own];
    const chain = listeners.reduceRight<() => Promise<T>>((next, listener) => () => listener.around(call, next), work);
    return Promise.resolve().then(chain);
  }

  #close(call: Call): void {
    const at = this.#open.lastIndexOf(call);
    if (at >= 0) this.#open.splice(at, 1);
  }
}

/** The seam of code that has no context (a model request made outside any): the process's listeners only. */
export const processInstrumentation = new Instrumentation();
