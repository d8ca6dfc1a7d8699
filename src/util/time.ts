import { TimeoutError } from '../errors.js';

/** What a deadline's TimeoutError says of a page that answers slowly. */
export const BUSY_HINT = 'The page may be too busy to answer, running a script that never yields, or the browser is unresponsive.';

/** Throws a TimeoutError for `what` once `until` (ms since the epoch) has passed: nothing is sent to the page after its deadline. */
export function beforeDeadline(until: number, ms: number, what: string): void {
  if (Date.now() >= until) throw new TimeoutError(`${what} timed out after ${ms} ms. ${BUSY_HINT}`, ms);
}

/** Resolves with `promise`, or rejects with a TimeoutError naming `what` once `ms` have passed. */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string, hint = ''): Promise<T> {
  if (!Number.isFinite(ms) || ms <= 0) return promise;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} timed out after ${ms} ms.${hint ? ' ' + hint : ''}`, ms)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** A promise with its resolve/reject exposed (Promise.withResolvers is Node 22+). */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * One deadline for a whole operation: `signal` aborts (with a TimeoutError as its reason) when it
 * passes, so an HTTP request in flight is cancelled, and `race` rejects on time even if the work
 * under it does not notice.
 */
export class Deadline {
  readonly #controller = new AbortController();
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly at: number;

  constructor(
    readonly ms: number,
    what: string,
    hint = '',
  ) {
    this.at = Date.now() + ms;
    this.#timer = setTimeout(
      () => this.#controller.abort(new TimeoutError(`${what} timed out after ${ms} ms.${hint ? ' ' + hint : ''}`, ms)),
      ms,
    );
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Milliseconds left, at least 1 (0 would mean "no deadline" to withDeadline). */
  remaining(): number {
    return Math.max(1, this.at - Date.now());
  }

  /** Ends the operation early (the first error of several parallel parts): aborts what is in flight. */
  abort(reason: Error): void {
    this.#controller.abort(reason);
  }

  race<T>(promise: Promise<T>): Promise<T> {
    const signal = this.#controller.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  dispose(): void {
    clearTimeout(this.#timer);
  }
}

/** Resolves after `ms`: for pauses a caller asked for (a typing delay, a drag's steps), never to wait on the browser. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
