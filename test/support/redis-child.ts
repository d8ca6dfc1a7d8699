// Run as a child process by test/hosted/redis-cache.test.ts: opens a RedisCache on the REDIS_URL given
// (with this process's environment, NODE_EXTRA_CA_CERTS included), uses it, closes it, and prints
// what still holds the event loop. Alone in its process, nothing else adds sockets or timers, so
// what is left is what close() left.

import { RedisCache } from '../../src/hosted/server/redis.js';
import { readRedisConfig } from '../../src/hosted/server/redis-config.js';
import { Logger } from '../../src/logger.js';

const cache = await RedisCache.connect(readRedisConfig({ REDIS_URL: process.argv[2] })!, new Logger({ verbose: 0, disablePino: true }));
await cache.set('child', { ok: true });
const before = await cache.get('child');
await cache.close();
// A destroyed socket's handle is released in the close phase, after this turn's immediates.
for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
const after = await cache.get('child');
process.stdout.write(`${JSON.stringify({ before, after, resources: process.getActiveResourcesInfo() })}\n`);
