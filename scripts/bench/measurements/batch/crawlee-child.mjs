// One Crawlee PlaywrightCrawler run in a process of its own (plain JavaScript; Crawlee is imported
// by absolute path from its scratch install). Argument: JSON { entry, urls, concurrency, mode,
// executablePath, args, storageDir }. mode "defaults": only maxConcurrency (the shared concurrency)
// and the browser are set; "tuned": what Crawlee's scaling guide and options offer for speed (see
// the measurement's README section). Both modes keep the bench's offline host rules in force (see
// `proxy` below). Timed from its browser's launch on (Crawlee launches it lazily inside run()), as
// the other contenders are timed once their browser is up. Prints one JSON line:
// { ms, pages, failed, launchMs, firstMs, handlerMs[] }.
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
const created = performance.now();
let t0 = null;
// Crawlee always starts the browser behind a proxy server of its own, in this Node process (so
// that per-context proxies can work). Chromium then hands that proxy every request that its proxy
// bypass list does not exclude, and the proxy resolves and fetches them itself: the bench's offline
// --host-resolver-rules, which make the corpus pages' remote scripts, styles and images fail at
// once in every other contender, no longer apply, so they are fetched from the real web where this
// machine reaches it, and each page's `load` waits for them (measured: 7 to 30 s a navigation
// instead of 1 to 5 s). Bypassing the proxy for every host puts Crawlee back on the same footing
// as the others; it is no speed tuning, and both modes have it.
const proxy = { bypass: '*' };
const launchContext = { launchOptions: { executablePath: given.executablePath, args: given.args, headless: true, proxy } };
// The clock starts once the browser is up (its launch is reported apart).
const browserPoolOptions = { postLaunchHooks: [() => void (t0 ??= performance.now())] };
const requestHandler = async ({ page }) => {
  const start = performance.now();
  const text = await page.evaluate(() => document.body.innerText);
  if (typeof text === 'string') pages++;
  firstMs ??= performance.now() - (t0 ?? created);
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
        browserPoolOptions: { ...browserPoolOptions, useFingerprints: false, retireBrowserAfterPageCount: 100000 },
        useSessionPool: false,
        persistCookiesPerSession: false,
        maxRequestRetries: 0,
      }
    : { launchContext, browserPoolOptions, requestHandler, failedRequestHandler, maxConcurrency: given.concurrency },
  // Tuned: storage in memory instead of JSON files on disk.
  tuned ? new Configuration({ persistStorage: false, purgeOnStart: true }) : undefined,
);
await crawler.run(given.urls);
const end = performance.now();
const launchMs = t0 === null ? null : t0 - created;
process.stdout.write(`${JSON.stringify({ ms: end - (t0 ?? created), pages, failed, launchMs, firstMs, handlerMs })}\n`);
process.exit(0);
