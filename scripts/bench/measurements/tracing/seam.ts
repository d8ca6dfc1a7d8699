// "With tracing off, no measurable cost on extract() and act()": this checkout's Sdk against the
// same Sdk at the commit before the instrumentation seam (0507b94), each in child processes of the
// same script (seam-child.ts), alternated, on the same page and Chromium. The old tree is unpacked
// once under .bench/ (git archive, so the repository gets no extra worktree) with its page scripts
// generated, and imports the packages of this checkout's node_modules.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, SCRATCH_ROOT, clientOptions, type LaunchSpec } from '../../core/config.js';
import type { ComparisonContext } from '../../core/measurement.js';
import { ACTION } from '../act/measure.js';

/** The last commit before the seam (ccacada put every public call through util/instrumentation.ts). */
export const PRE_SEAM_COMMIT = '0507b94';
const HERE = path.dirname(fileURLToPath(import.meta.url));
const PRE_SEAM_DIR = path.join(SCRATCH_ROOT, `pre-seam-${PRE_SEAM_COMMIT}`);
const CHILD_DEADLINE_MS = 180_000;

export interface SeamSamples {
  readonly extract: number[];
  readonly extractCpu: number[];
  readonly act: number[];
  readonly actCpu: number[];
}

export interface SeamRun {
  readonly calls: number;
  readonly rounds: number;
  /** Per round, one child each: this checkout and the commit before the seam. */
  readonly current: SeamSamples[];
  readonly preSeam: SeamSamples[];
}

function preparePreSeam(log: (line: string) => void): string {
  const marker = path.join(PRE_SEAM_DIR, '.ready');
  if (existsSync(marker)) return PRE_SEAM_DIR;
  log(`tracing: unpacking ${PRE_SEAM_COMMIT} into ${PRE_SEAM_DIR} and generating its page scripts`);
  rmSync(PRE_SEAM_DIR, { recursive: true, force: true });
  mkdirSync(PRE_SEAM_DIR, { recursive: true });
  const tar = execFileSync('git', ['-C', REPO_ROOT, 'archive', '--format=tar', PRE_SEAM_COMMIT], { maxBuffer: 1 << 30 });
  execFileSync('tar', ['-x', '-C', PRE_SEAM_DIR], { input: tar });
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(PRE_SEAM_DIR, 'node_modules'));
  execFileSync(process.execPath, ['esbuild.config.mjs', '--page-scripts'], { cwd: PRE_SEAM_DIR, stdio: 'ignore', timeout: 120_000 });
  writeFileSync(marker, `${PRE_SEAM_COMMIT}\n`);
  return PRE_SEAM_DIR;
}

async function child(root: string, url: string, calls: number, warmups: number, launch: LaunchSpec): Promise<SeamSamples> {
  const given = { root, url, calls, warmups, options: clientOptions(launch), action: ACTION };
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, 'seam-child.ts'), JSON.stringify(given)], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => (out += d));
  proc.stderr.on('data', (d: Buffer) => (err += d));
  const timer = setTimeout(() => proc.kill('SIGKILL'), CHILD_DEADLINE_MS);
  try {
    const [code] = (await once(proc, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`seam child (${root}) exited with ${code}: ${err.trim().split('\n').slice(-3).join(' ')}`);
  } finally {
    clearTimeout(timer);
  }
  return JSON.parse(out.trim().split('\n').at(-1)!) as SeamSamples;
}

export async function compareSeam(ctx: ComparisonContext, launch: LaunchSpec): Promise<SeamRun> {
  const rounds = Number(process.env.BENCH_TRACING_SEAM_ROUNDS ?? 3);
  const calls = Number(process.env.BENCH_TRACING_SEAM_CALLS ?? 15);
  const old = preparePreSeam(ctx.log);
  const url = ctx.env.server.url('/act.html');
  const current: SeamSamples[] = [];
  const preSeam: SeamSamples[] = [];
  for (let round = 0; round < rounds; round++) {
    // Which tree goes first alternates, so a busy stretch falls on both alike.
    const order = round % 2 === 0 ? (['current', 'pre'] as const) : (['pre', 'current'] as const);
    for (const which of order) {
      const samples = await child(which === 'current' ? REPO_ROOT : old, url, calls, 3, launch);
      (which === 'current' ? current : preSeam).push(samples);
    }
    ctx.log(`tracing: seam round ${round + 1}/${rounds} done`);
  }
  return { calls, rounds, current, preSeam };
}
