// The tracing measurement's loop: Tendril and playwright-core, each on one browser and one
// context, visit the same pages and take the same four actions with tracing off and with
// `tracing.start({ screenshots: true, snapshots: true })`, the four modes interleaved per page and
// rotated from page to page and round to round. Per action: wall time and CPU time (this process
// and its Chrome processes, /proc); per traced visit: start, stop (the zip written) and its size.
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { OFFLINE_ARG, SCRATCH_ROOT } from '../../core/config.js';
import { errorText, type ComparisonContext } from '../../core/measurement.js';
import { loadCorpus, startDemo } from '../../core/page-sets.js';
import { withTimeout } from '../../core/timed-session.js';
import { cpuNowMs } from './cpu.js';
import { compareSeam, type SeamRun } from './seam.js';
import { ACTIONS, CLICK_TARGET, playwrightSession, tendrilSession, type ActionName, type TraceSession } from './sessions.js';

export const TRACING_ID = 'tracing';
export const LIBRARIES = [
  { id: 'tendril', label: 'Tendril' },
  { id: 'playwright', label: 'playwright-core' },
] as const;
export type LibraryId = (typeof LIBRARIES)[number]['id'];

export interface Visit {
  readonly page: string;
  /** -1 for the warm-up. */
  readonly round: number;
  /** Per action, wall ms and CPU ms. */
  readonly ms: Readonly<Record<ActionName, number>>;
  readonly cpuMs: number;
  /** Traced visits only. */
  readonly startMs?: number;
  readonly stopMs?: number;
  readonly stopCpuMs?: number;
  readonly bytes?: number;
}

export interface TracingRun {
  readonly pages: readonly { readonly label: string; readonly url: string; readonly clickXPath: string }[];
  readonly rounds: number;
  /** By library id, then "off" / "on". */
  readonly visits: ReadonlyMap<LibraryId, { readonly off: Visit[]; readonly on: Visit[] }>;
  readonly errors: readonly string[];
  readonly load: readonly [number, number];
  readonly seam: SeamRun | { readonly error: string };
}

const envInt = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number of 1 or more`);
  return value;
};

export async function runTracing(ctx: ComparisonContext): Promise<TracingRun> {
  const { env, log } = ctx;
  const startLoad = loadavg()[0]!;
  log(`${TRACING_ID}: 1-minute load average ${startLoad.toFixed(1)} at the start`);
  const rounds = envInt('BENCH_TRACING_ROUNDS', 3);
  const articles = Math.min(envInt('BENCH_TRACING_PAGES', 3), ctx.opts.corpusLimit ?? Infinity);
  const corpus = loadCorpus(env.server, articles);
  const demo = await startDemo();
  const launch = { ...env.launch, args: [...env.launch.args, OFFLINE_ARG] };
  const dir = path.join(SCRATCH_ROOT, 'tracing', String(process.pid));
  mkdirSync(dir, { recursive: true });
  const errors: string[] = [];
  const visits = new Map<LibraryId, { off: Visit[]; on: Visit[] }>(LIBRARIES.map((l) => [l.id, { off: [], on: [] }]));
  const sessions = new Map<LibraryId, TraceSession>();
  const t = <T>(label: string, work: Promise<T>) => withTimeout(label, env.opTimeoutMs, work);
  try {
    sessions.set('tendril', await t('Tendril init()', tendrilSession(launch, env.opTimeoutMs)));
    sessions.set('playwright', await t('playwright-core launch', playwrightSession(launch, env.opTimeoutMs)));
    const candidates = [
      { label: 'act page', url: env.server.url('/act.html') },
      { label: 'shop page (cross-origin frame)', url: env.server.url('/shop.html') },
      { label: 'demo page (frames, shadow roots)', url: demo.page.url },
      ...(corpus?.pages ?? []).map((p) => ({ label: p.label, url: p.url })),
    ];
    // The click target, found once on playwright-core's load of each page (untimed, not traced).
    const probe = sessions.get('playwright')!;
    const pages: Array<TracingRun['pages'][number]> = [];
    for (const c of candidates) {
      await t('probe goto', probe.run('goto', c.url, ''));
      pages.push({ ...c, clickXPath: String(await t('probe evaluate', probe.evaluate(CLICK_TARGET))) });
    }
    // One untimed visit per mode first: the first trace of a process pays for loading its code.
    const modes = LIBRARIES.flatMap((l) => [
      { id: l.id, label: l.label, on: false },
      { id: l.id, label: l.label, on: true },
    ]);
    let n = 0;
    const visit = async (m: (typeof modes)[number], page: (typeof pages)[number], round: number) => {
      const keep = round >= 0;
      const s = sessions.get(m.id)!;
      const file = path.join(dir, `${m.id}-${++n}.zip`);
      const ms = {} as Record<ActionName, number>;
      let startMs: number | undefined;
      if (m.on) {
        const t0 = performance.now();
        await t(`${m.label} tracing.start`, s.startTracing());
        startMs = performance.now() - t0;
      }
      const cpu0 = cpuNowMs();
      for (const action of ACTIONS) {
        const t0 = performance.now();
        await t(`${m.label} ${action}`, s.run(action, page.url, page.clickXPath));
        ms[action] = performance.now() - t0;
      }
      const cpuMs = cpuNowMs() - cpu0;
      let traced = {};
      if (m.on) {
        const t0 = performance.now();
        const bytes = await t(`${m.label} tracing.stop`, s.stopTracing(file));
        const stopMs = performance.now() - t0;
        traced = { startMs, stopMs, stopCpuMs: cpuNowMs() - cpu0 - cpuMs, bytes };
        rmSync(file, { force: true });
      }
      const v: Visit = { page: page.label, round, ms, cpuMs, ...traced };
      if (keep) visits.get(m.id)![m.on ? 'on' : 'off'].push(v);
      if (ctx.opts.verbose || !keep)
        log(
          `${TRACING_ID}: ${keep ? '' : 'warm-up '}${m.label} tracing ${m.on ? 'on' : 'off'}, ${page.label}: ${ACTIONS.map((a) => `${a} ${ms[a].toFixed(0)}`).join(', ')} ms${v.bytes ? `, ${(v.bytes / 1024).toFixed(0)} KiB` : ''}`,
        );
    };
    for (const m of modes) await visit(m, pages[0]!, -1);
    for (let round = 0; round < rounds; round++) {
      for (const [i, page] of pages.entries()) {
        const order = modes.map((_, k) => modes[(k + round + i) % modes.length]!);
        for (const m of order) {
          try {
            await visit(m, page, round);
          } catch (error) {
            errors.push(`${m.label} tracing ${m.on ? 'on' : 'off'}, ${page.label}: ${errorText(error)}`);
            log(`${TRACING_ID}: failed: ${errors.at(-1)}`);
          }
        }
      }
      log(`${TRACING_ID}: round ${round + 1}/${rounds} done (load average ${loadavg()[0]!.toFixed(1)})`);
    }
    for (const s of sessions.values()) await t(`${s.label} close`, s.close()).catch(() => undefined);
    sessions.clear();
    let seam: SeamRun | { error: string };
    try {
      seam = await compareSeam(ctx, launch);
    } catch (error) {
      seam = { error: errorText(error) };
      log(`${TRACING_ID}: the seam comparison failed: ${seam.error}`);
    }
    const endLoad = loadavg()[0]!;
    log(`${TRACING_ID}: 1-minute load average ${endLoad.toFixed(1)} at the end`);
    return { pages, rounds, visits, errors, load: [startLoad, endLoad], seam };
  } finally {
    for (const s of sessions.values()) await s.close().catch(() => undefined);
    demo.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
