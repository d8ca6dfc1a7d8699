// CPU time from /proc: this Node process (which runs Tendril and playwright-core's server alike)
// plus every Chrome process below it. Wall-clock times on this shared machine move with its load;
// CPU time moves much less, so a recorder's own work shows in it even on a busy run.
import { readFileSync } from 'node:fs';
import { chromeDescendants } from '../../core/procs.js';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** utime + stime of one process in ms, 0 when it is gone. */
function processCpuMs(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * CPU ms so far of this process and its live Chrome descendants. A Chrome process that exits between
 * two readings takes its time with it; the renderers the bench reads from stay up across the visit.
 */
export function cpuNowMs(): number {
  const own = process.cpuUsage();
  return (own.user + own.system) / 1000 + chromeDescendants().reduce((sum, p) => sum + processCpuMs(p.pid), 0);
}
