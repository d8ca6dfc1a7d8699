// The batch measurement's loop: every contender reads the same real pages, rounds interleaved
// (each round runs every contender once, in an order rotated from round to round, so a busy
// stretch of this shared machine does not fall on one contender only); medians per contender.
import type { ComparisonContext } from '../../core/measurement.js';
import { errorText } from '../../core/measurement.js';
import { OFFLINE_ARG } from '../../core/config.js';
import { loadCorpus } from '../../core/page-sets.js';
import { freePort, startRedis } from '../../../../test/support/redis.js';
import { batchRun, crawleeRun, playwrightLoop, prepareCrawlee, sdkLoop, type RunResult } from './runners.js';

export const BATCH_ID = 'batch';

export interface Contender {
  readonly id: string;
  readonly label: string;
  /** Browsers reading at once and pages each reads at once. */
  readonly browsers: number;
}

export const CONTENDERS: readonly Contender[] = [
  { id: 'batch-1', label: 'Tendril batch, 1 worker', browsers: 1 },
  { id: 'batch-2', label: 'Tendril batch, 2 workers', browsers: 2 },
  { id: 'batch-3', label: 'Tendril batch, 3 workers', browsers: 3 },
  { id: 'sdk', label: 'loop over one Sdk (runJob, no queue)', browsers: 1 },
  { id: 'playwright', label: 'playwright-core loop', browsers: 1 },
  { id: 'crawlee-defaults', label: 'Crawlee PlaywrightCrawler, defaults', browsers: 1 },
  { id: 'crawlee-tuned', label: 'Crawlee PlaywrightCrawler, tuned', browsers: 1 },
];

export interface BatchRun {
  readonly pages: number;
  readonly concurrency: number;
  readonly rounds: number;
  readonly results: ReadonlyMap<string, RunResult[]>;
  readonly errors: ReadonlyMap<string, string[]>;
  readonly notes: string[];
}

const envInt = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number of 1 or more`);
  return value;
};

export async function runBatch(ctx: ComparisonContext): Promise<BatchRun> {
  const concurrency = envInt('BENCH_BATCH_CONCURRENCY', 4);
  const rounds = envInt('BENCH_BATCH_ROUNDS', 3);
  const wanted = Math.min(envInt('BENCH_BATCH_PAGES', 120), ctx.opts.corpusLimit ?? Infinity);
  const corpus = loadCorpus(ctx.env.server, wanted);
  if (!corpus) throw new Error('batch: the corpus folder is absent; this measurement needs its real pages');
  const urls = corpus.pages.map((page) => page.url);
  const launch = { ...ctx.env.launch, args: [...ctx.env.launch.args, OFFLINE_ARG] };
  prepareCrawlee(ctx.log);
  const redis = await startRedis(await freePort());
  const redisUrl = `redis://127.0.0.1:${redis.port}`;
  const results = new Map<string, RunResult[]>(CONTENDERS.map((c) => [c.id, []]));
  const errors = new Map<string, string[]>(CONTENDERS.map((c) => [c.id, []]));
  const run = (id: string): Promise<RunResult> => {
    if (id.startsWith('batch-')) return batchRun(launch, redisUrl, urls, Number(id.slice(6)), concurrency);
    if (id === 'sdk') return sdkLoop(launch, urls, concurrency);
    if (id === 'playwright') return playwrightLoop(launch, urls, concurrency);
    return crawleeRun(launch, urls, concurrency, id === 'crawlee-tuned' ? 'tuned' : 'defaults');
  };
  try {
    for (let round = 0; round < rounds; round++) {
      const order = CONTENDERS.map((_, i) => CONTENDERS[(i + round) % CONTENDERS.length]!);
      for (const contender of order) {
        try {
          const result = await run(contender.id);
          results.get(contender.id)!.push(result);
          ctx.log(
            `batch: round ${round + 1}/${rounds} ${contender.label}: ${urls.length} pages in ${(result.ms / 1000).toFixed(1)} s (${((result.pages * 1000) / result.ms).toFixed(2)} pages/s${result.failed ? `, ${result.failed} failed` : ''})`,
          );
        } catch (error) {
          errors.get(contender.id)!.push(errorText(error));
          ctx.log(`batch: round ${round + 1}/${rounds} ${contender.label} failed: ${errorText(error)}`);
        }
      }
    }
  } finally {
    await redis.stop();
  }
  return { pages: urls.length, concurrency, rounds, results, errors, notes: [] };
}
