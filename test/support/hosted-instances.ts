// Hosted-server instances as a user runs them: `tendril hosted serve` processes sharing one Redis,
// behind Debian's nginx with examples/container/nginx.conf (its upstreams put on loopback).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROME, HOSTED_TEST_ENV, TEST_ARGS } from '../helpers.js';
import { runScript, waitForLine, type Run } from './child.js';
import { startNginx, type Nginx } from './nginx.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Instance {
  run: Run;
  port: number;
  /** Its id among the instances, as its log says it. */
  id: string;
}

/** One instance on `port`, started with `env` on top of the test settings; resolves once it listens. */
export async function startInstance(port: number, env: Record<string, string>, started: Run[] = []): Promise<Instance> {
  const run = runScript(path.join(ROOT, 'src/cli/main.ts'), ['hosted', 'serve'], {
    ...HOSTED_TEST_ENV,
    PORT: String(port),
    HOST: '127.0.0.1',
    CHROME_PATH: CHROME,
    CHROME_ARGS: TEST_ARGS.join(' '),
    ...env,
  });
  started.push(run);
  await waitForLine(run, /listening on http:\/\//);
  const id = /"instance":"([0-9a-f-]+)"/.exec(run.stderr())?.[1];
  if (!id) throw new Error(`the instance did not say its id:\n${run.stderr()}`);
  return { run, port, id };
}

/** nginx on `port` with the documented configuration, its upstreams the given instances. */
export function startBalancer(port: number, instances: Instance[]): Promise<Nginx> {
  const conf = readFileSync(path.join(ROOT, 'examples/container/nginx.conf'), 'utf8');
  let next = 0;
  const local = conf
    .replace(/server tendril-\d:3000;/g, () => `server 127.0.0.1:${instances[next++]!.port};`)
    .replace(/listen 8080;/, `listen 127.0.0.1:${port};`);
  if (next !== instances.length) throw new Error(`examples/container/nginx.conf names ${next} upstreams, not ${instances.length}`);
  return startNginx(port, local);
}
