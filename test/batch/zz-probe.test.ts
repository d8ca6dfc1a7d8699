import { expect, it } from 'vitest';
import { BatchQueue, BatchWorker } from '../../src/batch/index.js';
import { CHROME, TEST_ARGS } from '../helpers.js';
import { startBatchSite } from '../support/batch-site.js';
import { freePort, startRedis } from '../support/redis.js';
it('probe', async () => {
  const redis = await startRedis(await freePort());
  const site = await startBatchSite({ holdMs: 300 });
  const redisUrl = `redis://127.0.0.1:${redis.port}`;
  const queue = await BatchQueue.open({ queue: 'p', redisUrl });
  await queue.configure({ perHost: 1 });
  const t0 = Date.now();
  const log: string[] = [];
  const w = await BatchWorker.start({ queue: 'p', redisUrl, concurrency: 2, lockMs: 10000,
    sdk: { verbose: 0, disablePino: true, localBrowserLaunchOptions: { executablePath: CHROME, args: TEST_ARGS } },
    onJob: (e) => log.push(`${Date.now() - t1} ${e.kind} ${e.url}`) });
  const t1 = Date.now();
  await queue.add([0, 1, 2, 3].map((i) => ({ url: site.url('127.0.0.1', `/p/x${i}`) })));
  await w.untilEmpty();
  console.log(log.join('\n'), site.arrivals.map((a) => `${a.at - t1} ${a.path}`).join('\n'));
  await w.close(); await queue.close(); await site.close(); await redis.stop();
  expect(1).toBe(1);
}, 60000);
