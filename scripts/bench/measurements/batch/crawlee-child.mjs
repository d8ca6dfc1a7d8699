// One Crawlee PlaywrightCrawler run in a process of its own (plain JavaScript; Crawlee is imported
// by absolute path from its scratch install). Argument: JSON { entry, urls, concurrency, mode,
// executablePath, args, storageDir }. mode "defaults": only maxConcurrency (the shared concurrency)
// and the browser are set; "tuned": what Crawlee's scaling guide and options offer for speed (see
// the measurement's README section). Prints one JSON line: { ms, pages, failed, firstMs, handlerMs[] }.
import { pathToFileURL } from 'node:url';

const given = JSON.parse(process.argv[2]);
process.env.CRAWLEE_STORAGE_DIR = given.storageDir;
const { PlaywrightCrawler, Configuration, log } = await import(pathToFileURL(given.entry).href);
// BENCH_CRAWLEE_LOG=DEBUG shows what it does meanwhile (on stderr), with timestamps.
log.setLevel(log.LEVELS[process.env.BENCH_CRAWLEE_LOG ?? 'OFF']);

const handlerMs = [];
let pages = 0;
let failed = 0;
let firstMs = null;
const t0 = performance.now();
const launchContext = { launchOptions: { executablePath: given.executablePath, args: given.args, headless: true } };
const requestHandler = async ({ page }) => {
  const start = performance.now();
  const text = await page.evaluate(() => document.body.innerText);
  if (typeof text === 'string') pages++;
  firstMs ??= performance.now() - t0;
  handlerMs.push(performance.now() - start);
};
const failedRequestHandler = () => void failed++;
const tuned = given.mode === 'tuned';
const crawler = new PlaywrightCrawler(
  tuned
    ? {
        launchContext,
        requestHandler,
        failedRequestHandler,
        // Start at the concurrency wanted instead of 1, and do not scale down on this busy machine's CPU snapshots.
        minConcurrency: given.concurrency,
        maxConcurrency: given.concurrency,
        autoscaledPoolOptions: {
          desiredConcurrency: given.concurrency,
          maybeRunIntervalSecs: 0.05,
          systemStatusOptions: {
            maxCpuOverloadedRatio: 1,
            maxMemoryOverloadedRatio: 1,
            maxEventLoopOverloadedRatio: 1,
            maxClientOverloadedRatio: 1,
          },
        },
        // No generated fingerprint injected into every page; one browser for the whole run.
        browserPoolOptions: { useFingerprints: false, retireBrowserAfterPageCount: 100000 },
        useSessionPool: false,
        persistCookiesPerSession: false,
        maxRequestRetries: 0,
      }
    : { launchContext, requestHandler, failedRequestHandler, maxConcurrency: given.concurrency },
  // Tuned: storage in memory instead of JSON files on disk.
  tuned ? new Configuration({ persistStorage: false, purgeOnStart: true }) : undefined,
);
await crawler.run(given.urls);
const ms = performance.now() - t0;
process.stdout.write(`${JSON.stringify({ ms, pages, failed, firstMs, handlerMs })}\n`);
process.exit(0);
