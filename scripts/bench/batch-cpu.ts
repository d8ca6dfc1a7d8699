// Where Chromium's CPU per batch job goes (issue 50): variants of a worker's job (a context per job,
// newPage, goto, extract, as src/batch/runJob.ts does) on corpus pages, each in a Chromium of its
// own whose CPU is counted in a cgroup of its own (core/cpu-group.ts), so renderers that exit are
// counted. The variants take turns, block by block (a block: BLOCK pages, IN_FLIGHT at a time,
// the same pages for every variant in a round, the order rotated every round), and the medians of
// the blocks' CPU per page are printed. Nothing here is a bench result; it tells where CPU goes.
//
//   node --import tsx scripts/bench/batch-cpu.ts [rounds] [variant,variant,...]
//   node --import tsx scripts/bench/batch-cpu.ts targets      # what a fresh context creates: targets, processes
//
// Environment: BATCH_CPU_BLOCK (pages a block, 12), BATCH_CPU_IN_FLIGHT (6), BATCH_CPU_SPLIT=1 (also
// the CPU by process type: the browser process, the GPU and network processes; renderers, which
// exit with their context, are the rest). Findings of 2026-12-02 (docs/batch.md): in new headless
// Chrome the browser process is about 40% of a fresh context's CPU, since each context gets a window
// of Chrome's own UI (fresh-blank, raw-blank); the old headless shell has none (fresh-shell); goto's
// Network domain costs a few percent (fresh-goto against fresh, which runs gotoStatus).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ContextPool, type JobContext, type JobContexts } from '../../src/batch/contextPool.js';
import { discoverTargets, JobWatch } from '../../src/batch/jobWatch.js';
import { runJob } from '../../src/batch/runJob.js';
import type { CdpSession } from '../../src/cdp/session.js';
import type { Context } from '../../src/driver/context.js';
import type { Page } from '../../src/driver/page.js';
import { Sdk } from '../../src/index.js';
import { CORPUS_DIR, clientOptions, launchSpec, OFFLINE_ARG, PAGES_DIR, SCRATCH_ROOT } from './core/config.js';
import { CpuGroup } from './core/cpu-group.js';
import { startServer } from './core/server.js';

const BLOCK = Number(process.env.BATCH_CPU_BLOCK ?? 12);
const IN_FLIGHT = Number(process.env.BATCH_CPU_IN_FLIGHT ?? 6);
const TIMEOUT_MS = 60_000;

type Read = 'extract' | 'goto' | 'innerText' | 'blank' | 'tiny' | 'direct' | 'raw-blank' | 'raw-tab' | 'raw-tiny';
type Clear = 'cookies' | 'cache' | 'permissions' | 'storage-all' | 'storage-some';

/** A worker's way of holding pages, with the parts of the recycle pool each optional. */
interface Shared {
  /** A blank tab kept open for the slot's life. */
  anchor?: boolean;
  /** The slot's one tab serves every job (navigated to the next URL). */
  reuseTab?: boolean;
  /** The job's tab, on about:blank, is the slot's blank tab once the job ends (its renderer lives on): the old one closes. */
  handoff?: boolean;
  /** JobWatch on the job's page (Network on, target events); `discover`: Target.setDiscoverTargets too. */
  watch?: boolean;
  discover?: boolean;
  clear?: readonly Clear[];
}

interface Variant {
  /** Extra Chromium switches of this variant's browser. */
  readonly args?: readonly string[];
  /** Tendril's own switches left out. */
  readonly ignore?: readonly string[];
  /** How its job holds a page: runJob's fresh context, the pool as implemented, or a shared context with some of the pool's parts. */
  readonly hold: 'fresh' | 'recycle' | Shared;
  readonly read?: Read;
  readonly executable?: string;
}

// Storage types a job on an http(s) page can write (Storage.StorageType), without the ones the
// browser has no page API for.
const SOME_TYPES = 'cookies,file_systems,indexeddb,local_storage,cache_storage,service_workers';

const PW_FEATURES =
  '--disable-features=PaintHolding,OptimizationHints,MediaRouter,LensOverlay,AimEnabled,PreconnectToSearch,NetworkTimeServiceQuerying,DestroyProfileOnBrowserClose,AvoidUnnecessaryBeforeUnloadCheckSync';

const VARIANTS: Record<string, Variant> = {
  fresh: { hold: 'fresh' },
  'fresh-innertext': { hold: 'fresh', read: 'innerText' },
  'fresh-goto': { hold: 'fresh', read: 'goto' },
  'fresh-blank': { hold: 'fresh', read: 'blank' },
  'fresh-tiny': { hold: 'fresh', read: 'tiny' },
  'fresh-direct': { hold: 'fresh', read: 'direct' },
  'fresh-shell': { hold: 'fresh', executable: '/usr/lib/chromium/chromium-headless-shell' },
  'raw-blank': { hold: 'fresh', read: 'raw-blank' },
  'raw-tiny': { hold: 'fresh', read: 'raw-tiny' },
  'raw-tab': { hold: 'fresh', read: 'raw-tab' },
  recycle: { hold: 'recycle' },
  'shared-tab': { hold: { anchor: true } },
  'shared-tab-noanchor': { hold: {} },
  'shared-reuse': { hold: { reuseTab: true } },
  'shared-tab-watch': { hold: { anchor: true, watch: true, discover: true } },
  'shared-tab-watch-nodiscover': { hold: { anchor: true, watch: true } },
  'shared-tab-cookies': { hold: { anchor: true, clear: ['cookies'] } },
  'shared-tab-cache': { hold: { anchor: true, clear: ['cache'] } },
  'shared-tab-perms': { hold: { anchor: true, clear: ['permissions'] } },
  'shared-tab-storage-all': { hold: { anchor: true, watch: true, clear: ['storage-all'] } },
  'shared-tab-storage-some': { hold: { anchor: true, watch: true, clear: ['storage-some'] } },
  'shared-reuse-clear': {
    hold: { reuseTab: true, watch: true, discover: true, clear: ['cookies', 'cache', 'permissions', 'storage-some'] },
  },
  'shared-handoff': { hold: { anchor: true, handoff: true } },
  'shared-handoff-pps': { hold: { anchor: true, handoff: true }, args: ['--process-per-site'] },
  'shared-tab-pps': { hold: { anchor: true }, args: ['--process-per-site'] },
  'fresh-spare': { hold: 'fresh', ignore: ['--disable-features=SpareRendererForSitePerProcess'] },
  'fresh-pwfeatures': { hold: 'fresh', args: [PW_FEATURES] },
  'fresh-noext': { hold: 'fresh', args: ['--disable-extensions', '--disable-component-extensions-with-background-pages'] },
  'fresh-nosite': { hold: 'fresh', args: ['--disable-site-isolation-trials'] },
  'fresh-pps': { hold: 'fresh', args: ['--process-per-site'] },
  'fresh-nobfc': { hold: 'fresh', args: ['--disable-back-forward-cache'] },
  'fresh-field': { hold: 'fresh', args: ['--disable-field-trial-config'] },
  'fresh-nospare': { hold: 'fresh', args: ['--disable-features=SpareRendererForSitePerProcess'] },
  'fresh-nopreload': { hold: 'fresh', args: ['--disable-features=PreloadTopChromeWebUI'] },
  'recycle-nospare': { hold: 'recycle', args: ['--disable-features=SpareRendererForSitePerProcess'] },
  'recycle-pps': { hold: 'recycle', args: ['--process-per-site'] },
};

/** A slot's context and tabs for the `Shared` variants. */
class SharedSlots implements JobContexts {
  readonly #idle: Array<{ context: Context; anchor?: Page; tab?: Page; origins: Set<string>; browserContextId?: string }> = [];
  constructor(private readonly how: Shared) {}

  async open(sdk: Sdk): Promise<JobContext> {
    const how = this.how;
    let slot = this.#idle.pop();
    if (!slot) {
      const context = await sdk.newContext();
      slot = { context, origins: new Set(), anchor: how.anchor ? await context.newPage() : undefined };
    }
    const held = slot;
    const page = how.reuseTab ? (held.tab ??= await held.context.newPage()) : await held.context.newPage();
    const root = page.session.childSession('')!;
    if (how.clear?.length) await this.#clear(held, page, root);
    let watch: JobWatch | undefined;
    return {
      context: held.context,
      newPage: async () => {
        if (how.watch) {
          held.browserContextId ??= (await root.send('Target.getTargetInfo', { targetId: page.id })).targetInfo.browserContextId;
          if (how.discover) await discoverTargets(root);
          watch = new JobWatch(root, held.browserContextId!);
          await watch.session(page.session);
        }
        return page;
      },
      end: async () => {
        await watch?.stop();
        for (const origin of watch?.origins ?? []) held.origins.add(origin);
        if (how.handoff) {
          await page.goto('about:blank');
          await held.anchor?.close();
          held.anchor = page;
        } else if (!how.reuseTab) await page.close();
        this.#idle.push(held);
      },
    };
  }

  async #clear(slot: { context: Context; origins: Set<string>; browserContextId?: string }, page: Page, root: CdpSession) {
    const clear = this.how.clear!;
    const origins = [...slot.origins];
    slot.origins.clear();
    slot.browserContextId ??= (await root.send('Target.getTargetInfo', { targetId: page.id })).targetInfo.browserContextId;
    await Promise.all([
      clear.includes('cookies') ? slot.context.clearCookies() : undefined,
      clear.includes('cache') ? page.session.send('Network.clearBrowserCache') : undefined,
      clear.includes('permissions') ? root.send('Browser.resetPermissions', { browserContextId: slot.browserContextId }) : undefined,
      ...(clear.includes('storage-all')
        ? origins.map((origin) => page.session.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' }))
        : []),
      ...(clear.includes('storage-some')
        ? origins.map((origin) => page.session.send('Storage.clearDataForOrigin', { origin, storageTypes: SOME_TYPES }))
        : []),
    ]);
  }
}

interface Running {
  readonly name: string;
  readonly variant: Variant;
  readonly sdk: Sdk;
  readonly group: CpuGroup;
  readonly contexts?: JobContexts;
  readonly perPage: number[];
  readonly nodePerPage: number[];
  /** BATCH_CPU_SPLIT=1: CPU per page by process type, of the processes alive through a whole block; `exited` is the rest. */
  readonly split: Map<string, number[]>;
  root?: CdpSession;
  sharedContext?: Promise<string>;
  failed: number;
}

const CLOCK_TICK_MS = 10;

/** Chromium's processes of this browser (its descendants), by pid: type and CPU so far (ms). */
function processCpu(browserPid: number): Map<number, { type: string; ms: number }> {
  const all = new Map<number, { ppid: number; args: string; ms: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      all.set(Number(name), { ppid: Number(fields[1]), args, ms: (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS });
    } catch {
      // gone meanwhile
    }
  }
  const out = new Map<number, { type: string; ms: number }>();
  for (const [pid, proc] of all) {
    let at: number | undefined = pid;
    while (at !== undefined && at > 1 && at !== browserPid) at = all.get(at)?.ppid;
    if (at !== browserPid) continue;
    const type =
      (/--type=([\w-]+)/.exec(proc.args)?.[1] ?? 'browser') +
      (/--utility-sub-type=([\w.]+)/.exec(proc.args)?.[1]?.replace(/^.*\./, ' ') ?? '');
    out.set(pid, { type, ms: proc.ms });
  }
  return out;
}

async function start(name: string, variant: Variant, group: CpuGroup): Promise<Running> {
  const launch = launchSpec();
  const options = clientOptions({
    executablePath: group.wrap(variant.executable ?? launch.executablePath),
    args: [...launch.args, OFFLINE_ARG, ...(variant.args ?? [])],
  });
  const sdk = new Sdk({
    ...options,
    localBrowserLaunchOptions: { ...options.localBrowserLaunchOptions, ignoreDefaultArgs: variant.ignore && [...variant.ignore] },
  });
  await sdk.init();
  let root: CdpSession | undefined;
  if (variant.read?.startsWith('raw-')) {
    const page = await (await sdk.newContext()).newPage();
    root = page.session.childSession('')!;
  }
  const contexts = variant.hold === 'fresh' ? undefined : variant.hold === 'recycle' ? new ContextPool() : new SharedSlots(variant.hold);
  return { name, variant, sdk, group, contexts, perPage: [], nodePerPage: [], split: new Map(), root, failed: 0 };
}

async function job(run: Running, url: string): Promise<void> {
  if (run.variant.read === 'raw-tab') {
    // A tab of one context that lives on (a crawler's shared context): what a job costs without a context of its own.
    const root = run.root!;
    run.sharedContext ??= (async () => {
      const { browserContextId } = await root.send('Target.createBrowserContext', { disposeOnDetach: true });
      await root.send('Target.createTarget', { url: 'about:blank', browserContextId }); // its window stays
      return browserContextId;
    })();
    const browserContextId = await run.sharedContext;
    const { targetId } = await root.send('Target.createTarget', { url: 'about:blank', browserContextId });
    await root.send('Target.closeTarget', { targetId });
    return;
  }
  if (run.variant.read === 'raw-blank' || run.variant.read === 'raw-tiny') {
    const root = run.root!;
    const { browserContextId } = await root.send('Target.createBrowserContext', { disposeOnDetach: true });
    const target = run.variant.read === 'raw-tiny' ? new URL('/basic.html', url).href : 'about:blank';
    const { targetId } = await root.send('Target.createTarget', { url: target, browserContextId });
    if (run.variant.read === 'raw-tiny') {
      // a poll of the target's URL: the loading is what is measured, not our driver
      for (;;) {
        const { targetInfo } = await root.send('Target.getTargetInfo', { targetId });
        if (targetInfo.url === target && targetInfo.title) break;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    await root.send('Target.disposeBrowserContext', { browserContextId });
    return;
  }
  const read = run.variant.read ?? 'extract';
  if (read === 'extract') {
    const result = await runJob(run.sdk, { url }, { timeoutMs: TIMEOUT_MS, contexts: run.contexts });
    if (typeof result.pageText !== 'string') throw new Error('no text');
    return;
  }
  const context = await run.sdk.newContext();
  try {
    await IN_CONTEXT[read](run, context, url);
  } finally {
    await context.close();
  }
}

/** The variants whose job is a page of a fresh context of their own, read otherwise than runJob reads it. */
const IN_CONTEXT: Record<
  Exclude<Read, 'extract' | 'raw-blank' | 'raw-tab' | 'raw-tiny'>,
  (run: Running, context: Context, url: string) => Promise<void>
> = {
  // runJob's fresh context as it was before gotoStatus: goto() turns Chrome's Network domain on.
  goto: async (run, context, url) => {
    const page = await context.newPage();
    await page.goto(url, { timeoutMs: TIMEOUT_MS });
    await run.sdk.extract({ page });
  },
  direct: async (run, context, url) => {
    const page = await context.newPage(url);
    await page.waitForLoadState('load');
    await run.sdk.extract({ page });
  },
  blank: async (_run, context) => void (await context.newPage()),
  tiny: async (_run, context, url) =>
    void (await (await context.newPage()).goto(new URL('/basic.html', url).href, { timeoutMs: TIMEOUT_MS })),
  innerText: async (_run, context, url) => {
    const page = await context.newPage();
    await page.goto(url, { timeoutMs: TIMEOUT_MS });
    await page.evaluate(() => document.body.innerText);
  },
};

async function block(run: Running, urls: readonly string[]): Promise<void> {
  const before = run.group.usageMs();
  const node = process.cpuUsage();
  const splitting = process.env.BATCH_CPU_SPLIT === '1';
  const procsBefore = splitting ? processCpu(run.sdk.browserProcessId()!) : undefined;
  let next = 0;
  let done = 0;
  const lane = async () => {
    while (next < urls.length) {
      const url = urls[next++]!;
      try {
        await job(run, url);
        done++;
      } catch (error) {
        run.failed++;
        console.error(`${run.name}: ${url}: ${(error as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  // Renderers of closed contexts exit a moment later: counted with the block that made them.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const used = process.cpuUsage(node);
  const total = run.group.usageMs() - before;
  run.perPage.push(total / Math.max(done, 1));
  if (procsBefore) {
    const byType = new Map<string, number>();
    for (const [pid, now] of processCpu(run.sdk.browserProcessId()!)) {
      const was = procsBefore.get(pid);
      if (was) byType.set(now.type, (byType.get(now.type) ?? 0) + now.ms - was.ms);
    }
    byType.set('exited', total - [...byType.values()].reduce((a, b) => a + b, 0));
    for (const [type, ms] of byType) run.split.set(type, [...(run.split.get(type) ?? []), ms / Math.max(done, 1)]);
  }
  run.nodePerPage.push((used.user + used.system) / 1000 / Math.max(done, 1));
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function corpusUrls(origin: (p: string) => string): string[] {
  return readdirSync(path.join(CORPUS_DIR, 'html'))
    .filter((n) => n.endsWith('.html.gz'))
    .map((n) => n.slice(0, -'.html.gz'.length))
    .sort()
    .slice(0, 60)
    .map((id) => origin(`/corpus/html/${id}.html`));
}

/** What one fresh context with one corpus page creates: the browser's targets, and Chromium's processes by type. */
async function targets(urls: string[]): Promise<void> {
  const group = CpuGroup.make(`targets-${Date.now()}`, SCRATCH_ROOT)!;
  const run = await start('targets', { hold: 'fresh' }, group);
  const pid = run.sdk.browserProcessId()!;
  const pgid = execFileSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8' }).trim();
  const list = () =>
    execFileSync('ps', ['-eo', 'pgid=,args='], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.trim().split(' ')[0] === pgid && line.includes('--type='))
      .map(
        (line) =>
          `${/--type=([\w-]+)/.exec(line)?.[1]}${/--utility-sub-type=([\w.]+)/.exec(line)?.[1] ?? ''}${line.includes('--extension-process') ? ' extension' : ''}`,
      );
  console.log('processes before:', list());
  const context = await run.sdk.newContext();
  const page = await context.newPage();
  await page.goto(urls[0]!, { timeoutMs: TIMEOUT_MS });
  const session = page.session.childSession('')!;
  const { targetInfos } = await session.send('Target.getTargets');
  for (const info of targetInfos) console.log(`target ${info.type} ${info.url.slice(0, 100)} ${info.browserContextId}`);
  console.log('processes with one context:', list());
  await context.close();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  console.log('processes after its close:', list());
  await run.sdk.close();
  group.dispose();
}

async function main(): Promise<void> {
  const server = await startServer([
    { prefix: '/corpus/', dir: CORPUS_DIR },
    { prefix: '/', dir: PAGES_DIR },
  ]);
  const urls = corpusUrls((p) => server.url(p));
  try {
    if (process.argv[2] === 'targets') return await targets(urls);
    const rounds = Number(process.argv[2] ?? 5);
    const names = process.argv[3]?.split(',') ?? Object.keys(VARIANTS);
    const runs: Running[] = [];
    for (const name of names) {
      const variant = VARIANTS[name];
      if (!variant) throw new Error(`no variant ${name} (there are ${Object.keys(VARIANTS).join(', ')})`);
      runs.push(await start(name, variant, CpuGroup.make(`${name}-${Date.now()}`, SCRATCH_ROOT)!));
    }
    // A first block each, unmeasured: V8's code caches, the HTTP cache and the first context warm up.
    for (const run of runs) {
      await block(run, urls.slice(0, BLOCK));
      run.perPage.length = run.nodePerPage.length = 0;
      run.split.clear();
    }
    for (let round = 0; round < rounds; round++) {
      const pages = Array.from({ length: BLOCK }, (_, i) => urls[(round * BLOCK + i) % urls.length]!);
      for (let i = 0; i < runs.length; i++) await block(runs[(i + round) % runs.length]!, pages);
      console.error(`round ${round + 1}/${rounds}: ${runs.map((r) => `${r.name} ${r.perPage.at(-1)!.toFixed(0)}`).join(', ')}`);
    }
    console.log(
      `Chromium CPU per page, median of ${rounds} blocks of ${BLOCK} pages (${IN_FLIGHT} in flight); Node (this process, the page server included)`,
    );
    for (const run of runs) {
      const spread = `${Math.min(...run.perPage).toFixed(0)}–${Math.max(...run.perPage).toFixed(0)}`;
      console.log(
        `${run.name.padEnd(30)} ${median(run.perPage).toFixed(0).padStart(5)} ms (${spread})  node ${median(run.nodePerPage).toFixed(0)} ms${run.failed ? `  ${run.failed} failed` : ''}`,
      );
      for (const [type, values] of run.split) console.log(`  ${type.padEnd(28)} ${median(values).toFixed(0).padStart(5)} ms`);
    }
    await Promise.all(runs.map(async (run) => (await run.sdk.close(), run.group.dispose())));
  } finally {
    await server.close();
  }
}

await main();
process.exit(0);
