import { TimeoutError } from '../errors.js';

/** Resolves with `promise`, or rejects with a TimeoutError naming `what` once `ms` have passed. */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string, hint = ''): Promise<T> {
  if (!Number.isFinite(ms) || ms <= 0) return promise;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new TimeoutError(`${what} timed out after ${ms} ms.${hint ? ' ' + hint : ''}`, ms)),
      ms,
    );
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
