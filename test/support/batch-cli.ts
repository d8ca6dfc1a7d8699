// The command line against a real Redis, for a batch test file: a redis-server and a scratch folder
// for the file's tests, `tendril …` run as users run it, and every worker it started killed at the end.

import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { CHROME } from '../helpers.js';
import { runScript, type Run } from './child.js';
import { freePort, startRedis, type RedisServer } from './redis.js';

export const CLI = 'src/cli/main.ts';

export function useBatchCli(prefix: string) {
  let redis: RedisServer | undefined;
  let dir = '';
  const workers: Run[] = [];
  beforeAll(async () => {
    redis = await startRedis(await freePort());
    dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterAll(async () => {
    for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await Promise.all([redis?.stop(), dir && rm(dir, { recursive: true, force: true })]);
  });
  const env = () => ({ REDIS_URL: `redis://127.0.0.1:${redis!.port}`, CHROME_PATH: CHROME });
  return {
    /** The file's scratch folder. */
    get dir(): string {
      return dir;
    },
    /** The file's redis-server (redis-cli against it: `redis.cli(...)`). */
    get redis(): RedisServer {
      return redis!;
    },
    /** Worker processes to kill, if still running, once the file's tests are done. */
    workers,
    env,
    /** `tendril …` to its end; its stdout, or an error with its stderr when it exits non-zero. */
    async cli(...args: string[]): Promise<string> {
      const run = runScript(CLI, args, env());
      const code = await run.exit;
      if (code !== 0) throw new Error(`tendril ${args.join(' ')} exited ${code}: ${run.stderr()}`);
      return run.stdout();
    },
  };
}
