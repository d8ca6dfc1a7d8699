// CPU time of a set of processes, exited ones included, from a cgroup of their own (Linux; cgroup v1's
// cpuacct or v2's cpu.stat). A process joins by a wrapper that writes its pid into the group and
// then execs the real program, so every process it starts (Chromium's renderers, a worker's
// Chromium unless that joins a group of its own) is counted too, whenever it exits. Summing
// /proc/PID/stat over live processes misses a renderer that exited between two readings, which
// a fresh browser context per page makes common.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const V1 = '/sys/fs/cgroup/cpuacct';
const V2 = '/sys/fs/cgroup';

function root(): { dir: string; usageMs: (dir: string) => number } | null {
  if (existsSync(path.join(V1, 'cpuacct.usage')))
    return { dir: V1, usageMs: (dir) => Number(readFileSync(path.join(dir, 'cpuacct.usage'), 'utf8')) / 1e6 };
  if (existsSync(path.join(V2, 'cgroup.controllers')))
    return {
      dir: V2,
      usageMs: (dir) => Number(/usage_usec (\d+)/.exec(readFileSync(path.join(dir, 'cpu.stat'), 'utf8'))?.[1] ?? Number.NaN) / 1e3,
    };
  return null;
}

export class CpuGroup {
  private constructor(
    private readonly dir: string,
    private readonly read: (dir: string) => number,
    private readonly scripts: string,
  ) {}

  /** A new, empty group, or null where this machine gives none (no cgroup, or no right to make one). */
  static make(name: string, scratch: string): CpuGroup | null {
    const found = root();
    if (!found) return null;
    const dir = path.join(found.dir, `tendril-bench-${process.pid}-${name}`);
    try {
      mkdirSync(dir);
    } catch {
      return null;
    }
    const scripts = path.join(scratch, `cpu-group-${process.pid}-${name}`);
    mkdirSync(scripts, { recursive: true });
    return new CpuGroup(dir, found.usageMs, scripts);
  }

  /** CPU time, user and system, of every process that was ever in the group (ms). */
  usageMs(): number {
    return this.read(this.dir);
  }

  /** An executable that joins this group, then runs `program` with its arguments. */
  wrap(program: string): string {
    const file = path.join(this.scripts, path.basename(program));
    writeFileSync(file, `#!/bin/sh\necho $$ > '${path.join(this.dir, 'cgroup.procs')}'\nexec '${program}' "$@"\n`);
    chmodSync(file, 0o755);
    return file;
  }

  /** Removes the group; its processes must all have exited. */
  dispose(): void {
    try {
      rmdirSync(this.dir);
    } catch {
      // A process still in it (a browser being reaped): the kernel keeps the group until it is gone.
    }
  }
}
