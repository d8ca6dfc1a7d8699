// The batch measurement's loop: every contender reads the same real pages, rounds interleaved
// (each round runs every contender once, in an order rotated from round to round, so a busy
// stretch of this shared machine does not fall on one contender only); medians per contender. Two
// page sets: every page on one origin, and the same pages spread over 100 host names that resolve
// to loopback (a crawl of many sites: connections, DNS and per-site processes are not shared).
import type { ComparisonContext } from '../../core/measurement.js';
import { errorText } from '../../core/measurement.js';
import { loadavg } from 'node:os';
import { OFFLINE_ARG } from '../../core/config.js';
import { loadCorpus } from '../../core/page-sets.js';
import { freePort, startRedis } from '../../../../test/support/redis.js';
import {
  JOB_TIMEOUT_MS,
  batchRun,
  CRAWLEE_VERSION,
  crawleeRun,
  loopRun,
  playwrightVersion,
  prepareCrawlee,
  type Browsers,
  type RunResult,
} from './runners.js';

export const BATCH_ID = 'batch';

export interface Contender {
  readonly id: string;
  readonly label: string;
  /** Browsers reading at once; the pages in flight are shared among them. */
  readonly browsers: number;
}

/** Tendril's launch switches of 2026-12-02 (docs/browsers.md): left out, the launch is as it was before them. */
const SWITCHES_SINCE = ['--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup', '--disable-features=SpareRendererForSitePerProcess'];

export const CONTENDERS: readonly Contender[] = [
  { id: 'batch-1', label: 'Tendril batch, 1 worker', browsers: 1 },
  { id: 'batch-2', label: 'Tendril batch, 2 workers', browsers: 2 },
  { id: 'batch-1-recycle', label: 'Tendril batch, 1 worker, `--isolation recycle`', browsers: 1 },
  { id: 'batch-2-recycle', label: 'Tendril batch, 2 workers, `--isolation recycle`', browsers: 2 },
  { id: 'sdk', label: 'loop over one Sdk (runJob, no queue)', browsers: 1 },
  {
    id: 'sdk-before',
    label: "loop over one Sdk, launched as before 2026-12-02 (Chrome's omnibox WebUI and spare renderer on)",
    browsers: 1,
  },
  { id: 'playwright', label: 'playwright-core loop', browsers: 1 },
  { id: 'crawlee-defaults', label: 'Crawlee PlaywrightCrawler, defaults', browsers: 1 },
  { id: 'crawlee-tuned', label: 'Crawlee PlaywrightCrawler, tuned', browsers: 1 },
];

/** A set of pages every contender reads, and the host rules its browser needs for them. */
export interface PageSetRun {
  readonly id: string;
  readonly label: string;
  readonly urls: readonly string[];
  readonly hostRules: string;
}

/** Host names of the many-sites set: they resolve to loopback, everything else (the pages' remote parts) to nothing. */
const HOSTS = 100;
const MANY_SITES_RULES = '--host-resolver-rules=MAP *.bench.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1';

function pageSets(urls: readonly string[]): PageSetRun[] {
  const spread = urls.map((each, i) => {
    const url = new URL(each);
    url.hostname = `site${i % HOSTS}.bench.test`;
    return url.href;
  });
  const sets = [
    { id: 'one-origin', label: 'one origin', urls, hostRules: OFFLINE_ARG },
    { id: 'many-sites', label: `${Math.min(HOSTS, urls.length)} host names`, urls: spread, hostRules: MANY_SITES_RULES },
  ];
  const only = process.env.BENCH_BATCH_SETS?.split(',').map((id) => id.trim());
  const unknown = only?.filter((id) => !sets.some((set) => set.id === id)) ?? [];
  if (unknown.length > 0) throw new Error(`BENCH_BATCH_SETS: no page set ${unknown.join(', ')} (there are one-origin, many-sites)`);
  return only ? sets.filter((set) => only.includes(set.id)) : sets;
}

/**
 * The peers' runs are kept between bench runs (core/peer-cache.ts) as the other measurements' are,
 * round by round: Crawlee's defaults alone take minutes. Tendril's contenders are always run.
 */
function peerLabel(id: string): string | undefined {
  if (id === 'playwright') return `playwright-core ${playwrightVersion()}`;
  if (id.startsWith('crawlee-')) return `Crawlee ${CRAWLEE_VERSION} ${id.slice('crawlee-'.length)}`;
  return undefined;
}

/** A peer's round as kept: its result, or why it failed (a peer that always fails is not rerun either). */
type KeptRound = { result: RunResult } | { error: string };

export interface BatchRun {
  readonly pages: number;
  /** Pages being read at once, the same for every contender (a batch worker reads its share). */
  readonly inFlight: number;
  readonly rounds: number;
  readonly sets: readonly PageSetRun[];
  /** Per page set, per contender id. */
  readonly results: ReadonlyMap<string, ReadonlyMap<string, RunResult[]>>;
  readonly errors: ReadonlyMap<string, ReadonlyMap<string, string[]>>;
  /** Contenders whose rounds were kept from an earlier run (peers only). */
  readonly reused: ReadonlySet<string>;
  /** Which peers' rounds were kept, and from when: said under the table (the bench's notes say it too). */
  readonly keptNotes: readonly string[];
  readonly notes: string[];
}

const envInt = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number of 1 or more`);
  return value;
};

export async function runBatch(ctx: ComparisonContext): Promise<BatchRun> {
  // Like is compared with like: K workers read inFlight / K pages each, so every contender has
  // the same pages in flight at any moment, and only how it reads them differs.
  const inFlight = envInt('BENCH_BATCH_IN_FLIGHT', 6);
  const workerCounts = [...new Set(CONTENDERS.filter((c) => c.id.startsWith('batch-')).map((c) => c.browsers))];
  if (workerCounts.some((k) => inFlight % k !== 0))
    throw new Error(
      `BENCH_BATCH_IN_FLIGHT must be a multiple of ${workerCounts.join(', ')} (each worker reads an equal share), not ${inFlight}`,
    );
  // Sized so that the whole bench fits in 20 minutes with the peers' rounds kept (issue 37): the
  // Tendril rows are measured every time. Larger runs say so in the env.
  const rounds = envInt('BENCH_BATCH_ROUNDS', 2);
  const wanted = Math.min(envInt('BENCH_BATCH_PAGES', 60), ctx.opts.corpusLimit ?? Infinity);
  const corpus = loadCorpus(ctx.env.server, wanted);
  if (!corpus) throw new Error('batch: the corpus folder is absent; this measurement needs its real pages');
  const sets = pageSets(corpus.pages.map((page) => page.url));
  prepareCrawlee(ctx.log);
  const redis = await startRedis(await freePort());
  const redisUrl = `redis://127.0.0.1:${redis.port}`;
  const run = (id: string, set: PageSetRun): Promise<RunResult> => {
    const launch: Browsers = {
      ...ctx.env.launch,
      args: [...ctx.env.launch.args, set.hostRules],
      ignoreDefaultArgs: id === 'sdk-before' ? SWITCHES_SINCE : undefined,
    };
    const workers = Number(id.split('-')[1]);
    if (id.startsWith('batch-'))
      return batchRun(launch, redisUrl, set.urls, workers, inFlight / workers, id.endsWith('-recycle') ? 'recycle' : 'fresh');
    if (id === 'sdk' || id === 'sdk-before') return loopRun('sdk', launch, set.urls, inFlight);
    if (id === 'playwright') return loopRun('playwright', launch, set.urls, inFlight);
    return crawleeRun(launch, set.urls, inFlight, id === 'crawlee-tuned' ? 'tuned' : 'defaults');
  };
  // A subset (BENCH_BATCH_CONTENDERS=batch-1,sdk) measures one question, such as the queue's own
  // cost, in more rounds in the same time; the others' rows are then empty.
  const only = process.env.BENCH_BATCH_CONTENDERS?.split(',').map((id) => id.trim());
  const unknown = only?.filter((id) => !CONTENDERS.some((c) => c.id === id)) ?? [];
  if (unknown.length > 0)
    throw new Error(`BENCH_BATCH_CONTENDERS: no contender ${unknown.join(', ')} (there are ${CONTENDERS.map((c) => c.id).join(', ')})`);
  const chosen = only ? CONTENDERS.filter((c) => only.includes(c.id)) : CONTENDERS;
  // Only the chosen contenders have rows: the report leaves the others out rather than calling them failed.
  const results = new Map(sets.map((set) => [set.id, new Map<string, RunResult[]>(chosen.map((c) => [c.id, []]))]));
  const errors = new Map(sets.map((set) => [set.id, new Map<string, string[]>(chosen.map((c) => [c.id, []]))]));
  const { peers } = ctx.env;
  const reused = new Set<string>();
  try {
    for (let round = 0; round < rounds; round++) {
      for (const set of sets) {
        const settings = JSON.stringify({ pages: set.urls.length, set: set.id, inFlight, jobTimeoutMs: JOB_TIMEOUT_MS, cpu: 1 });
        const order = chosen.map((_, i) => chosen[(i + round) % chosen.length]!);
        for (const contender of order) {
          const prefix = `batch: round ${round + 1}/${rounds}, ${set.label}, ${contender.label}`;
          const peer = peerLabel(contender.id);
          const roundId = `round ${round + 1}`;
          // A file per page set: the peer cache keeps one key (its settings, the set among them) per file.
          const keptAs = `${contender.id}.${set.id}`;
          const kept = peer ? peers.lookup<KeptRound>(BATCH_ID, keptAs, peer, settings, roundId, 'round') : undefined;
          let outcome: KeptRound;
          if (kept) {
            reused.add(contender.id);
            outcome = kept;
          } else {
            try {
              const before = loadavg()[0]!;
              outcome = { result: { ...(await run(contender.id, set)), load: [before, loadavg()[0]!] } };
            } catch (error) {
              outcome = { error: errorText(error) };
            }
            if (peer) peers.store(BATCH_ID, keptAs, peer, settings, roundId, outcome);
          }
          const was = kept ? ' (kept from an earlier run)' : '';
          if ('error' in outcome) {
            errors.get(set.id)!.get(contender.id)!.push(outcome.error);
            ctx.log(`${prefix} failed${was}: ${outcome.error}`);
            continue;
          }
          const { result } = outcome;
          results.get(set.id)!.get(contender.id)!.push(result);
          const cpu = result.cpu
            ? `, Chromium ${(result.cpu.chrome / result.pages).toFixed(0)} ms and Node ${(result.cpu.node / result.pages).toFixed(0)} ms CPU a page`
            : '';
          ctx.log(
            `${prefix}${was}: ${set.urls.length} pages in ${(result.ms / 1000).toFixed(1)} s (${((result.pages * 1000) / result.ms).toFixed(2)} pages/s${cpu}${result.failed ? `, ${result.failed} failed` : ''}, load average ${(result.load ?? []).map((n) => n.toFixed(0)).join(' → ')})`,
          );
        }
      }
    }
  } finally {
    await redis.stop();
  }
  return { pages: corpus.pages.length, inFlight, rounds, sets, results, errors, reused, keptNotes: peers.notes(BATCH_ID), notes: [] };
}
