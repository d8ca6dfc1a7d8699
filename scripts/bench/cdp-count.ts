// What DevTools traffic one batch job makes (issue 50): the commands Tendril sends and the events
// Chrome reports, per job, over 5 jobs of runJob's fresh context on corpus pages, after one to warm
// up. Each event is work for Chrome's browser process and for ours; nothing here is a bench result.
//
//   node --import tsx scripts/bench/cdp-count.ts
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { runJob } from '../../src/batch/runJob.js';
import { Sdk } from '../../src/index.js';
import { CORPUS_DIR, clientOptions, launchSpec, OFFLINE_ARG, PAGES_DIR } from './core/config.js';
import { startServer } from './core/server.js';

const server = await startServer([
  { prefix: '/corpus/', dir: CORPUS_DIR },
  { prefix: '/', dir: PAGES_DIR },
]);
const ids = readdirSync(path.join(CORPUS_DIR, 'html'))
  .filter((n) => n.endsWith('.html.gz'))
  .map((n) => n.slice(0, -8))
  .sort();
const counts = new Map<string, number>();
let on = false;
const launch = launchSpec();
const options = clientOptions({ ...launch, args: [...launch.args, OFFLINE_ARG] });
const sdk = new Sdk({
  ...options,
  verbose: 2,
  logger: (line) => {
    if (!on || line.category !== 'cdp') return;
    const key = String(line.message).replace(/^([→←]) (?:[0-9A-F]{8} )?/, '$1 ');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  },
});
await sdk.init();
await runJob(sdk, { url: server.url(`/corpus/html/${ids[0]}.html`) }, { timeoutMs: 60000 });
on = true;
const N = 5;
for (let i = 1; i <= N; i++) await runJob(sdk, { url: server.url(`/corpus/html/${ids[i]}.html`) }, { timeoutMs: 60000 });
on = false;
for (const [k, v] of [...counts].sort((a, b) => b[1] - a[1])) console.log(String(v / N).padStart(6), k);
await sdk.close();
await server.close();
process.exit(0);
