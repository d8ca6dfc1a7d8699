// The contenders of the batch measurement, each reading the same pages at the same concurrency in
// the same Chromium, and each timed from the moment its browser(s) are up until every page is read:
// Tendril's batch queue with K real worker processes, a plain loop over one Sdk (runJob, the
// queue's per-job work without the queue), a hand-written playwright-core loop, and Crawlee's
// PlaywrightCrawler (which times itself from its browser's launch on, as it launches it lazily
// inside run()). Each runs in processes of its own, so that the CPU of its Node (in one cgroup) and
// of its Chromium (in another) is measured apart from the bench's page server and from each other.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { BatchQueue } from '../../../../src/batch/index.js';
import { runJob } from '../../../../src/batch/runJob.js';
import { Sdk } from '../../../../src/index.js';
import { REPO_ROOT, SCRATCH_ROOT, clientOptions, type LaunchSpec } from '../../core/config.js';
import { CpuGroup } from '../../core/cpu-group.js';
import { ensureScratch, installedVersion } from '../../core/scratch.js';

export const CRAWLEE_VERSION = '3.18.1';
export const PLAYWRIGHT_VERSION = '1.65.1';
const HERE = path.dirname(fileURLToPath(import.meta.url));
const CRAWLEE_DIR = path.join(SCRATCH_ROOT, 'crawlee');
export const JOB_TIMEOUT_MS = 60_000;

/** The playwright-core the loop contender runs: the project's own (a test dependency). */
export function playwrightVersion(): string {
  return (createRequire(import.meta.url)('playwright-core/package.json') as { version: string }).version;
}

export interface RunResult {
  readonly ms: number;
  readonly pages: number;
  readonly failed: number;
  /** What else the contender reports (Crawlee: its browser's launch, time to its first page, per-page handler times). */
  readonly detail?: { launchMs: number | null; firstMs: number | null; handlerMs: number[] };
  /** The machine's 1-minute load average when the run started and when it ended. */
  readonly load?: readonly [number, number];
  /** CPU time of the contender's Chromium processes and of its Node processes over the run (ms), where a cgroup could be made. */
  readonly cpu?: { readonly chrome: number; readonly node: number };
}

/** How a contender's browsers are started: the bench's Chromium and switches, and what Tendril's launch leaves out. */
export interface Browsers extends LaunchSpec {
  /** Switches of Tendril's own to leave out (ignoreDefaultArgs): the launch as it was before a change. */
  readonly ignoreDefaultArgs?: readonly string[];
}

/**
 * One cgroup for the contender's Node processes and one for its Chromium's, made for one run:
 * children start through `node()` and launch `chrome` as their browser.
 */
export class RunGroups {
  readonly chromeGroup: CpuGroup | null;
  readonly nodeGroup: CpuGroup | null;
  private static made = 0;

  constructor() {
    const id = String(++RunGroups.made);
    this.chromeGroup = CpuGroup.make(`chrome-${id}`, SCRATCH_ROOT);
    this.nodeGroup = CpuGroup.make(`node-${id}`, SCRATCH_ROOT);
  }

  /** The executable a child launches as its Chromium. */
  chrome(executablePath: string): string {
    return this.chromeGroup?.wrap(executablePath) ?? executablePath;
  }

  /** The executable a contender's Node process is started with. */
  node(): string {
    return this.nodeGroup?.wrap(process.execPath) ?? process.execPath;
  }

  usage(): { chrome: number; node: number } | undefined {
    if (!this.chromeGroup || !this.nodeGroup) return undefined;
    return { chrome: this.chromeGroup.usageMs(), node: this.nodeGroup.usageMs() };
  }

  dispose(): void {
    this.chromeGroup?.dispose();
    this.nodeGroup?.dispose();
  }
}

/** The CPU the groups counted between `before` and now. */
function spent(groups: RunGroups, before: { chrome: number; node: number } | undefined) {
  const after = groups.usage();
  return before && after ? { chrome: after.chrome - before.chrome, node: after.node - before.node } : undefined;
}

/** Runs `work` on every URL, `concurrency` at a time; counts the pages read and the failures. */
async function pool(
  urls: readonly string[],
  concurrency: number,
  work: (url: string) => Promise<void>,
): Promise<{ pages: number; failed: number }> {
  let next = 0;
  let pages = 0;
  let failed = 0;
  const lane = async () => {
    while (next < urls.length) {
      const url = urls[next++]!;
      try {
        await work(url);
        pages++;
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { pages, failed };
}

export async function playwrightLoop(launch: Browsers, urls: readonly string[], concurrency: number): Promise<RunResult> {
  const browser = await chromium.launch({ executablePath: launch.executablePath, args: [...launch.args], headless: true });
  try {
    const t0 = performance.now();
    const counts = await pool(urls, concurrency, async (url) => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(url, { timeout: JOB_TIMEOUT_MS });
        await page.evaluate(() => document.body.innerText);
      } finally {
        await context.close();
      }
    });
    return { ms: performance.now() - t0, ...counts };
  } finally {
    await browser.close();
  }
}

export async function sdkLoop(launch: Browsers, urls: readonly string[], concurrency: number): Promise<RunResult> {
  const options = clientOptions(launch);
  const sdk = new Sdk({
    ...options,
    localBrowserLaunchOptions: {
      ...options.localBrowserLaunchOptions,
      ignoreDefaultArgs: launch.ignoreDefaultArgs && [...launch.ignoreDefaultArgs],
    },
  });
  await sdk.init();
  try {
    const t0 = performance.now();
    const counts = await pool(urls, concurrency, async (url) => {
      const result = await runJob(sdk, { url }, { timeoutMs: JOB_TIMEOUT_MS });
      if (typeof result.pageText !== 'string') throw new Error(`no page text for ${url}`);
    });
    return { ms: performance.now() - t0, ...counts };
  } finally {
    await sdk.close();
  }
}

/** Reads a child's standard output until `done` says what it printed is complete. */
function readUntil(child: ChildProcess, done: (out: string) => boolean, what: string): Promise<string> {
  let out = '';
  return new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk;
      if (done(out)) resolve(out);
    });
    child.once('exit', (code) => (done(out) ? resolve(out) : reject(new Error(`${what} exited ${code}: ${out.slice(-300)}`))));
  });
}

/** A worker process of `worker-child.ts`, resolved once it takes jobs. */
async function startWorker(
  launch: Browsers,
  groups: RunGroups,
  queue: string,
  redisUrl: string,
  concurrency: number,
  isolation: Isolation,
): Promise<ChildProcess> {
  const given = {
    queue,
    redisUrl,
    concurrency,
    isolation,
    executablePath: groups.chrome(launch.executablePath),
    args: launch.args,
    ignoreDefaultArgs: launch.ignoreDefaultArgs,
  };
  const child = spawn(groups.node(), ['--import', 'tsx', path.join(HERE, 'worker-child.ts'), JSON.stringify(given)], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  await readUntil(child, (out) => out.includes('ready\n'), 'batch worker');
  return child;
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.stdin!.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

let queueRuns = 0;

/** How a batch worker isolates one job from the next (docs/batch.md): a fresh context per job, or its slot's context cleared. */
export type Isolation = 'fresh' | 'recycle';

/** `workers` worker processes of `concurrency` each, all up before the jobs are added; timed from the add to the last job's end. */
export async function batchRun(
  launch: Browsers,
  redisUrl: string,
  urls: readonly string[],
  workers: number,
  concurrency: number,
  isolation: Isolation,
): Promise<RunResult> {
  const name = `bench-${process.pid}-${++queueRuns}`;
  const queue = await BatchQueue.open({ queue: name, redisUrl });
  const groups = new RunGroups();
  const children: ChildProcess[] = [];
  try {
    // Every start settles before a failure is thrown, so that the finally stops the workers that did start.
    const started = await Promise.allSettled(
      Array.from({ length: workers }, () => startWorker(launch, groups, name, redisUrl, concurrency, isolation)),
    );
    for (const each of started) if (each.status === 'fulfilled') children.push(each.value);
    const failure = started.find((each) => each.status === 'rejected');
    if (failure) throw failure.reason;
    let pages = 0;
    let failed = 0;
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const check = () => pages + failed >= urls.length && finish();
    const stops = [await queue.on('completed', () => (pages++, check())), await queue.on('failed', () => (failed++, check()))];
    const before = groups.usage();
    const t0 = performance.now();
    // One attempt: a page that fails is counted as failed, as in the other contenders.
    await queue.add(
      urls.map((url) => ({ url, timeout: JOB_TIMEOUT_MS })),
      { attempts: 1 },
    );
    const deadline = setTimeout(finish, urls.length * JOB_TIMEOUT_MS);
    await finished;
    const ms = performance.now() - t0;
    const cpu = spent(groups, before);
    clearTimeout(deadline);
    stops.forEach((stop) => stop());
    return { ms, pages, failed: urls.length - pages, cpu };
  } finally {
    await Promise.all(children.map(stopWorker));
    await queue.close();
    groups.dispose();
  }
}

/** Runs one of the bench's child processes to its end (killed past `timeoutMs`) and parses the JSON line it printed last. */
async function childResult<T>(node: string, args: string[], cwd: string, timeoutMs: number, what: string): Promise<T> {
  const child = spawn(node, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  const line = out.trim().split('\n').pop() ?? '';
  if (code !== 0 || !line.startsWith('{')) throw new Error(`${what} exited ${code}: ${out.slice(-300)}`);
  return JSON.parse(line) as T;
}

/**
 * The Sdk loop or the playwright-core loop in a process of its own (loop-child.ts), so that its
 * Node's CPU is its own and not the bench's page server's.
 */
export async function loopRun(
  kind: 'sdk' | 'playwright',
  launch: Browsers,
  urls: readonly string[],
  concurrency: number,
): Promise<RunResult> {
  const groups = new RunGroups();
  try {
    const given = { kind, launch: { ...launch, executablePath: groups.chrome(launch.executablePath) }, urls, concurrency };
    const args = ['--import', 'tsx', path.join(HERE, 'loop-child.ts'), JSON.stringify(given)];
    const result = await childResult<RunResult>(groups.node(), args, REPO_ROOT, urls.length * JOB_TIMEOUT_MS, `the ${kind} loop`);
    // The child's whole life is counted: its loop is timed from its browser's being up, and its
    // launch and close are a small, equal part of every contender's CPU.
    return { ...result, cpu: groups.usage() };
  } finally {
    groups.dispose();
  }
}

export function prepareCrawlee(log: (line: string) => void): void {
  ensureScratch(
    {
      dir: CRAWLEE_DIR,
      name: 'tendril-bench-crawlee',
      specs: [`crawlee@${CRAWLEE_VERSION}`, `playwright@${PLAYWRIGHT_VERSION}`],
      env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
      problem: () =>
        installedVersion('crawlee', CRAWLEE_DIR) === CRAWLEE_VERSION
          ? null
          : `npm install finished but crawlee@${CRAWLEE_VERSION} is not resolvable from ${CRAWLEE_DIR}`,
    },
    log,
  );
}

/** One PlaywrightCrawler run in a child process; `mode` "defaults" or "tuned" (crawlee-child.mjs). */
export async function crawleeRun(
  launch: LaunchSpec,
  urls: readonly string[],
  concurrency: number,
  mode: 'defaults' | 'tuned',
): Promise<RunResult> {
  const entry = createRequire(path.join(CRAWLEE_DIR, 'package.json')).resolve('crawlee');
  const storageDir = path.join(CRAWLEE_DIR, 'storage', `${process.pid}-${++queueRuns}`);
  const groups = new RunGroups();
  const executablePath = groups.chrome(launch.executablePath);
  const given = { entry, urls, concurrency, mode, executablePath, args: launch.args, storageDir };
  let result: { ms: number; pages: number; failed: number; launchMs: number | null; firstMs: number | null; handlerMs: number[] };
  let cpu: RunResult['cpu'];
  try {
    const args = [path.join(HERE, 'crawlee-child.mjs'), JSON.stringify(given)];
    result = await childResult(groups.node(), args, CRAWLEE_DIR, urls.length * JOB_TIMEOUT_MS, `Crawlee (${mode})`);
    cpu = groups.usage();
  } finally {
    groups.dispose();
    rmSync(storageDir, { recursive: true, force: true });
  }
  return {
    ms: result.ms,
    pages: result.pages,
    failed: urls.length - result.pages,
    detail: { launchMs: result.launchMs, firstMs: result.firstMs, handlerMs: result.handlerMs },
    cpu,
  };
}
