// Admission of session starts. Starting a Chromium is the costliest thing the server does (a few
// hundred ms of CPU on an idle machine, seconds on a busy one); fifty at once on two cores make
// every one of them, and every running session, slow enough to time out. So at most `maxStarting`
// browsers start at once, a bounded queue waits for its turn, and whoever would wait longer than
// the server allows (or than the client said it waits) is told at once to come back later: 503
// with a Retry-After that the estimate of a start's duration gives.

import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { HEADERS, STATUS_OF } from '../../../protocol/index.js';
import { HostedServiceError } from '../../errors.js';

export interface AdmissionLimits {
  /** Browsers started at once. */
  maxStarting: number;
  /** Requests that may wait for a start; beyond, 503 at once. */
  startQueue: number;
  /** Longest a request waits in the queue. */
  startWaitMs: number;
}

interface Waiter {
  admit(): void;
  reject(error: Error): void;
}

/** Held while a browser starts: `done()` frees the slot (and teaches the estimate how long it took). */
export interface StartSlot {
  done(succeeded: boolean): void;
}

/** What a start is assumed to take before any was measured. */
const FIRST_ESTIMATE_MS = 2000;
/** Weight of the latest start in the running estimate. */
const LEARNING = 0.3;

/** Emits `change` whenever the number of starts or of waiting requests changes. */
export class Admission extends EventEmitter<{ change: [] }> {
  #starting = 0;
  readonly #queue: Waiter[] = [];
  #estimateMs = FIRST_ESTIMATE_MS;

  constructor(private readonly limits: AdmissionLimits) {
    super();
  }

  get starting(): number {
    return this.#starting;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** The running estimate of one browser start, in ms. */
  get estimateMs(): number {
    return Math.round(this.#estimateMs);
  }

  /**
   * Waits for a start slot. `budgetMs` is how long the client said it waits for its answer; the
   * wait ends, with a 503, early enough for the start after it to fit. `signal` is the client going
   * away: its place in the queue is given up, and no browser is started for nobody.
   */
  enter(budgetMs: number | undefined, signal?: AbortSignal): Promise<StartSlot> {
    if (signal?.aborted) return Promise.reject(busy('the client went away', 1));
    if (this.#starting < this.limits.maxStarting && !this.#queue.length) {
      if (budgetMs !== undefined && budgetMs < this.#estimateMs) {
        return Promise.reject(
          busy(
            `a browser takes about ${this.estimateMs} ms to start now, longer than the ${budgetMs} ms this request waits`,
            this.#retryAfter(),
          ),
        );
      }
      return Promise.resolve(this.#slot());
    }
    if (this.#queue.length >= this.limits.startQueue) {
      return Promise.reject(
        busy(
          `${this.#starting} browsers are starting and ${this.#queue.length} requests wait for their turn (HOSTED_START_QUEUE)`,
          this.#retryAfter(),
        ),
      );
    }
    // Its turn comes once the starts ahead of it are done, `maxStarting` at a time; its own start
    // must then still fit in what the client waits.
    const turnMs = Math.ceil((this.#queue.length + 1) / this.limits.maxStarting) * this.#estimateMs;
    // Twice the estimate: on a busy machine one start takes much longer than another.
    const byClient = budgetMs === undefined ? Infinity : budgetMs - 2 * this.#estimateMs;
    const waitMs = Math.min(this.limits.startWaitMs, byClient);
    if (turnMs > waitMs) {
      const limit =
        byClient < this.limits.startWaitMs
          ? `the ${budgetMs} ms this request waits`
          : `HOSTED_START_WAIT_MS (${this.limits.startWaitMs} ms)`;
      return Promise.reject(
        busy(
          `its turn to start a browser would come in about ${Math.round(turnMs / 1000)} s, later than ${limit} allows`,
          this.#retryAfter(),
        ),
      );
    }
    return new Promise<StartSlot>((resolve, reject) => {
      const leave = (error: Error) => {
        const index = this.#queue.indexOf(waiter);
        if (index < 0) return;
        this.#queue.splice(index, 1);
        this.emit('change');
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      };
      const waiter: Waiter = {
        admit: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(this.#slot());
        },
        reject: leave,
      };
      const onAbort = () => leave(busy('the client went away', 1));
      const timer = setTimeout(
        () => leave(busy(`no browser could start within ${Math.round(waitMs)} ms`, this.#retryAfter())),
        Math.max(0, waitMs),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(waiter);
      this.emit('change');
    });
  }

  /**
   * `start`, or a 503 when the client's budget runs out first: the start goes on (a browser killed
   * half-way is no cheaper), and what it yields then goes to `late`, which ends it.
   */
  withinBudget<T>(start: Promise<T>, budgetMs: number | undefined, late: (value: T) => void): Promise<T> {
    if (budgetMs === undefined) return start;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let expired = false;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        expired = true;
        reject(busy(`the browser did not start within the ${budgetMs} ms this request waits`, this.#retryAfter()));
      }, budgetMs);
    });
    start.then(
      (value) => expired && late(value),
      () => undefined,
    );
    return Promise.race([start, deadline]).finally(() => clearTimeout(timer));
  }

  /** Refuses every waiting request (the server is stopping). */
  closeAll(): void {
    for (const waiter of [...this.#queue])
      waiter.reject(
        new HostedServiceError('The server is stopping; try again on another instance.', STATUS_OF.unavailable, 'unavailable', 1),
      );
  }

  #slot(): StartSlot {
    this.#starting++;
    this.emit('change');
    const started = Date.now();
    let freed = false;
    return {
      done: (succeeded) => {
        if (freed) return;
        freed = true;
        this.#starting--;
        // A failed start says little about how long a start takes.
        if (succeeded) this.#estimateMs += LEARNING * (Date.now() - started - this.#estimateMs);
        const next = this.#queue.shift();
        this.emit('change');
        next?.admit();
      },
    };
  }

  /** Seconds until this many queued starts are likely done. */
  #retryAfter(): number {
    const rounds = Math.ceil((this.#queue.length + this.#starting) / this.limits.maxStarting);
    return Math.max(1, Math.ceil((rounds * this.#estimateMs) / 1000));
  }
}

function busy(why: string, retryAfterSeconds: number): Error {
  return new HostedServiceError(
    `The server is busy starting browsers: ${why}. Try again in ${retryAfterSeconds} s.`,
    STATUS_OF.unavailable,
    'unavailable',
    retryAfterSeconds,
  );
}

/** The client's HEADERS.maxWait, when it sent a sound one. */
export function maxWait(req: IncomingMessage): number | undefined {
  const raw = req.headers[HEADERS.maxWait];
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  return raw !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;
}
