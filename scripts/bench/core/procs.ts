// Finds and, when needed, kills the Chrome processes this bench started (Linux /proc only).
//
// Only descendants of this Node process are ever considered, and a pid is killed only while its
// start time still matches the one recorded, so other people's browsers and reused pids are safe.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcInfo {
  readonly pid: number;
  readonly ppid: number;
  /** Start time in clock ticks since boot (field 22 of /proc/PID/stat); guards against pid reuse. */
  readonly start: string;
  readonly comm: string;
  readonly state: string;
}

function readStat(pid: number): ProcInfo | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const rest = text.slice(close + 2).split(' ');
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: rest[0] ?? '?',
    ppid: Number(rest[1]),
    start: rest[19] ?? '',
  };
}

function allProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const info = readStat(Number(name));
    if (info) out.push(info);
  }
  return out;
}

const CHROME_COMM = /chrom|headless_shell/i;

/** Live (non-zombie) Chrome processes below `root` in the process tree. */
export function chromeDescendants(root: number = process.pid): ProcInfo[] {
  const procs = allProcs();
  const children = new Map<number, ProcInfo[]>();
  for (const p of procs) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const found: ProcInfo[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    for (const child of children.get(pid) ?? []) {
      queue.push(child.pid);
      if (child.state !== 'Z' && CHROME_COMM.test(child.comm)) found.push(child);
    }
  }
  return found;
}

function isAlive(p: ProcInfo): boolean {
  const now = readStat(p.pid);
  return now !== null && now.start === p.start && now.state !== 'Z';
}

function killOne(p: ProcInfo): void {
  if (!isAlive(p)) return;
  try {
    process.kill(p.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class ChromeReaper {
  private readonly tracked = new Map<number, ProcInfo>();

  /** Records (and returns) the Chrome processes currently below this Node process. */
  snapshot(): ProcInfo[] {
    const now = chromeDescendants();
    for (const p of now) this.tracked.set(p.pid, p);
    return now;
  }

  /**
   * Waits until every process in `procs` has exited (polling every few ms); whatever is still
   * alive after `timeoutMs` is killed. Returns those survivors, and when the last process was
   * seen gone (a `performance.now()` value; NaN when some had to be killed).
   */
  async settle(procs: readonly ProcInfo[], timeoutMs = 5_000): Promise<{ survivors: ProcInfo[]; goneAt: number }> {
    const deadline = performance.now() + timeoutMs;
    let alive = procs.filter(isAlive);
    let goneAt = performance.now();
    while (alive.length && performance.now() < deadline) {
      await sleep(2);
      alive = alive.filter(isAlive);
      goneAt = performance.now();
    }
    for (const p of alive) killOne(p);
    for (const p of procs) if (!isAlive(p)) this.tracked.delete(p.pid);
    return { survivors: alive, goneAt: alive.length ? Number.NaN : goneAt };
  }

  /** Synchronously kills everything tracked plus any Chrome still below us. Safe in exit paths. */
  killAll(): number {
    let killed = 0;
    const all = new Map<number, ProcInfo>(this.tracked);
    for (const p of chromeDescendants()) all.set(p.pid, p);
    for (const p of all.values()) {
      if (isAlive(p)) {
        killOne(p);
        killed++;
      }
    }
    this.tracked.clear();
    return killed;
  }
}
