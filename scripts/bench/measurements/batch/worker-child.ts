// One batch worker process, as `tendril worker` runs one (BatchWorker.start), but launching the
// bench's Chromium with the bench's switches (the offline host rules among them), which the CLI has
// no flag for. Argument: JSON { queue, redisUrl, concurrency, isolation, executablePath, args,
// ignoreDefaultArgs }. Prints
// "ready" once it takes jobs; closes (jobs in hand finish) and exits when its stdin closes.
import { BatchWorker } from '../../../../src/batch/index.js';

const given = JSON.parse(process.argv[2]!) as {
  queue: string;
  redisUrl: string;
  concurrency: number;
  isolation: 'fresh' | 'recycle';
  executablePath: string;
  args: string[];
  ignoreDefaultArgs?: string[];
};
const worker = await BatchWorker.start({
  queue: given.queue,
  redisUrl: given.redisUrl,
  concurrency: given.concurrency,
  isolation: given.isolation,
  sdk: {
    env: 'LOCAL',
    verbose: 0,
    disablePino: true,
    localBrowserLaunchOptions: {
      executablePath: given.executablePath,
      headless: true,
      args: given.args,
      ignoreDefaultArgs: given.ignoreDefaultArgs,
    },
  },
  onError: (error) => process.stderr.write(`worker: ${error.message}\n`),
  onJob: (event) => event.kind === 'failed' && process.stderr.write(`failed ${event.url}: ${event.error.message}\n`),
});
process.stdout.write('ready\n');
process.stdin.resume();
process.stdin.on('end', () => void worker.close().then(() => process.exit(0)));
