// Before each library's turn on a page, the machine is let settle. A browser that has just built a
// large accessibility tree (Stagehand's, on the 10,000-row table, takes tens of seconds) goes on
// collecting garbage and tearing down for a while after its call returns, and on two cores whoever
// runs next would pay for that in their own time.
import { readFile } from 'node:fs/promises';

export const SETTLE = { windowMs: 200, idleShare: 0.85, maxMs: 5000 } as const;

/** How the tables' notes say it. */
export const SETTLE_NOTE = `each turn once the CPUs were ${SETTLE.idleShare * 100}% idle over ${SETTLE.windowMs} ms (at most ${SETTLE.maxMs / 1000} s of waiting)`;

/** Idle and total CPU time of all cores so far (in jiffies), or null where /proc/stat is not there. */
async function cpuTimes(): Promise<{ idle: number; total: number } | null> {
  try {
    const first = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0] ?? '';
    const fields = first.trim().split(/\s+/).slice(1).map(Number);
    if (fields.length < 5 || fields.some((n) => !Number.isFinite(n))) return null;
    // idle + iowait
    return { idle: fields[3]! + fields[4]!, total: fields.reduce((a, b) => a + b, 0) };
  } catch {
    return null;
  }
}

/**
 * Waits until the CPUs were at least `idleShare` idle over one window of `windowMs`, for at most
 * `maxMs`. Returns how long it waited; at once (0) where the CPU times cannot be read.
 */
export async function settle(o: { windowMs: number; idleShare: number; maxMs: number } = SETTLE): Promise<number> {
  const started = Date.now();
  let before = await cpuTimes();
  if (!before) return 0;
  while (Date.now() - started < o.maxMs) {
    await new Promise((resolve) => setTimeout(resolve, o.windowMs));
    const after = await cpuTimes();
    if (!after) return Date.now() - started;
    const total = after.total - before.total;
    if (total > 0 && (after.idle - before.idle) / total >= o.idleShare) break;
    before = after;
  }
  return Date.now() - started;
}
