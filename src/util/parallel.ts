import { SdkError } from '../errors.js';
import type { Deadline } from './time.js';

/** Runs `count` tasks, at most `limit` at a time; results in task order; the first failure stops the rest. */
export async function inParallel<T>(count: number, limit: number, task: (index: number) => Promise<T>, deadline: Deadline): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count && !deadline.signal.aborted) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
  } catch (error) {
    // The other chunks' requests are cancelled: their answers could no longer be used.
    deadline.abort(error instanceof Error ? error : new SdkError(String(error)));
    throw error;
  }
  return results;
}
