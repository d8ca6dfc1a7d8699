// The container files for the hosted server (Dockerfile, examples/container/). No container engine
// runs on the machines this suite runs on, so the files are checked as text, and what the image runs
// (its entrypoint's command, its health check command) is run here for real.

import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CHROME, HOSTED_TEST_ENV } from '../helpers.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Instruction {
  op: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped; one list per stage. */
function stages(text: string): Instruction[][] {
  const out: Instruction[][] = [];
  const joined = text.replace(/\\\n/g, ' ');
  for (const raw of joined.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    if (!op) continue;
    if (op.toUpperCase() === 'FROM') out.push([]);
    out.at(-1)?.push({ op: op.toUpperCase(), args: args!.trim() });
  }
  return out;
}

/** The names under `services:` in a compose file, and each one's block of text. */
function services(text: string): Map<string, string> {
  const body = text.slice(text.indexOf('\nservices:\n') + '\nservices:\n'.length);
  const found = new Map<string, string>();
  let current: string | undefined;
  for (const line of body.split('\n')) {
    if (/^\S/.test(line)) break; // the next top-level key
    const name = /^ {2}([\w-]+):\s*$/.exec(line)?.[1];
    if (name) found.set((current = name), '');
    else if (current) found.set(current, `${found.get(current)}${line}\n`);
  }
  return found;
}

const children: Array<ReturnType<typeof spawn>> = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

describe('the Dockerfile', () => {
  const [build, runtime] = stages(read('Dockerfile'));
  const last = (op: string) => runtime!.filter((each) => each.op === op).at(-1);

  it('builds the package in one stage and runs it in a Debian image with Chromium, as an unprivileged user', () => {
    expect(build!.some((each) => each.op === 'RUN' && /npm ci\b/.test(each.args))).toBe(true);
    expect(build!.some((each) => each.op === 'RUN' && /npm run build\b/.test(each.args))).toBe(true);
    expect(runtime![0]!.args).toMatch(/^node:20-bookworm/);
    expect(runtime!.some((each) => each.op === 'RUN' && /apt-get install .*\bchromium\b/.test(each.args))).toBe(true);
    const env = runtime!
      .filter((each) => each.op === 'ENV')
      .map((each) => each.args)
      .join(' ');
    expect(env).toMatch(/\bCHROME_PATH=\/usr\/bin\/chromium\b/);
    expect(env).toMatch(/\bHOST=0\.0\.0\.0\b/);
    const user = last('USER')?.args;
    expect(user).toBeDefined();
    expect(['root', '0', '0:0']).not.toContain(user);
    // The user comes after everything that needs root.
    const lastRun = runtime!.map((each) => each.op).lastIndexOf('RUN');
    expect(runtime!.findIndex((each) => each.op === 'USER')).toBeGreaterThan(lastRun);
  });

  it('keeps the redis package (REDIS_URL needs it) through the prune of dev dependencies', () => {
    const prune = build!.find((each) => each.op === 'RUN' && /npm prune\b.*--omit=dev/.test(each.args))!.args;
    const [before, after] = [prune.slice(0, prune.indexOf('npm prune')), prune.slice(prune.indexOf('npm prune'))];
    expect(before).toMatch(/cp -r node_modules\/redis node_modules\/@redis (\S+)/);
    const kept = /cp -r node_modules\/redis node_modules\/@redis (\S+?)\/?\s/.exec(before)![1]!;
    expect(after).toContain(`cp -r ${kept}/redis ${kept}/@redis node_modules/`);
  });

  it('runs the server itself as PID 1 (exec form), stops it with SIGTERM, and checks its health on /healthz', () => {
    const entry = JSON.parse(last('ENTRYPOINT')!.args) as string[];
    expect(entry).toEqual(['node', 'dist/cli.js', 'hosted', 'serve']);
    // The file npm's build writes, which the package's bin runs where there is no source beside it (bin/tendril.js).
    expect((JSON.parse(read('package.json')) as { bin: Record<string, string> }).bin.tendril).toBe('./bin/tendril.js');
    expect(read('bin/tendril.js')).toContain("await import('../dist/cli.js')");
    expect(last('STOPSIGNAL')?.args).toBe('SIGTERM');
    expect(last('HEALTHCHECK')?.args).toMatch(/\/healthz/);
  });
});

describe('examples/container', () => {
  const compose = read('examples/container/compose.yaml');
  const nginx = read('examples/container/nginx.conf');
  const found = services(compose);

  it('has two server instances sharing keys, signing secret and Redis, a Redis, and a balancer', () => {
    expect([...found.keys()].sort()).toEqual(['balancer', 'redis', 'tendril-1', 'tendril-2']);
    // Both instances are the one anchored definition, so their settings cannot drift apart.
    for (const name of ['tendril-1', 'tendril-2']) expect(found.get(name)).toMatch(/<<: \*tendril\b/);
    const shared = compose.slice(compose.indexOf('x-tendril: &tendril'), compose.indexOf('\nservices:'));
    expect(shared).toMatch(/context: \.\.\/\.\./);
    for (const name of ['HOSTED_API_KEYS', 'HOSTED_SIGNING_SECRET']) expect(shared).toMatch(new RegExp(`${name}: \\$\\{${name}:\\?`));
    expect(shared).toMatch(/REDIS_URL: redis:\/\/redis:6379/);
    expect(shared).toMatch(/PUBLIC_URL: http:\/\/localhost:8080/);
    // Each instance tells the others where it is (its service name) in the registry.
    for (const name of ['tendril-1', 'tendril-2']) expect(found.get(name)).toContain(`HOSTED_INTERNAL_URL: http://${name}:3000`);
    expect(found.get('balancer')).toMatch(/"8080:8080"/);
    expect(found.get('balancer')).toMatch(/nginx\.conf:\/etc\/nginx\/conf\.d\/default\.conf/);
  });

  it('balances in plain round-robin (no pinning: any instance serves any session), and passes WebSocket upgrades', () => {
    const upstream = /upstream tendril \{([^}]*)\}/.exec(nginx)![1]!;
    expect(upstream).not.toMatch(/\b(hash|ip_hash|sticky)\b/);
    const servers = [...upstream.matchAll(/server ([\w-]+):3000/g)].map((match) => match[1]);
    expect(servers.sort()).toEqual(['tendril-1', 'tendril-2']);
    expect(nginx).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    expect(nginx).toMatch(/proxy_set_header Connection \$connection_upgrade;/);
  });
});

describe('examples/container/kubernetes.yaml', () => {
  const text = read('examples/container/kubernetes.yaml');
  const documents = text.split(/^---$/m);

  it('runs several pods behind a plain Service, each advertising its own IP to the others, with shared secrets and Redis', () => {
    const deployment = documents.find((doc) => /kind: Deployment/.test(doc) && /name: tendril-hosted\n/.test(doc))!;
    expect(Number(/replicas: (\d+)/.exec(deployment)![1])).toBeGreaterThanOrEqual(2);
    expect(deployment).toMatch(/fieldPath: status\.podIP/);
    expect(deployment).toMatch(/name: HOSTED_INTERNAL_URL\n\s+value: http:\/\/\$\(POD_IP\):3000/);
    expect(deployment).toMatch(/secretRef: \{ name: tendril-hosted \}/);
    expect(deployment).toMatch(/REDIS_URL\n\s+value: redis:\/\/tendril-redis:6379/);
    expect(deployment).toMatch(/path: \/healthz/);
    const service = documents.find((doc) => /kind: Service/.test(doc) && /name: tendril-hosted\n/.test(doc))!;
    expect(service).not.toMatch(/sessionAffinity: ClientIP/);
    expect(service).toMatch(/targetPort: 3000/);
  });
});

describe('what the image runs', () => {
  it('the entrypoint serves /healthz without a key, the health check command passes on it and fails elsewhere, and SIGTERM stops it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts'), 'hosted', 'serve'], {
      cwd: ROOT,
      env: { ...process.env, ...HOSTED_TEST_ENV, HOSTED_API_KEYS: 'container-test-key', PORT: '0', HOST: '127.0.0.1', CHROME_PATH: CHROME },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
    });
    const health = await fetch(new URL('/healthz', url));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, sessions: 0, maxSessions: 5 });

    // The HEALTHCHECK's own command, as Docker would run it in the container.
    const [, ...check] = JSON.parse(/HEALTHCHECK .*CMD (\[.*\])/.exec(read('Dockerfile').replace(/\\\n/g, ' '))![1]!) as string[];
    const port = new URL(url).port;
    expect(spawnSync(process.execPath, check, { env: { ...process.env, PORT: port }, timeout: 10_000 }).status).toBe(0);
    const closed = spawnSync(
      process.execPath,
      ['-e', 'require("net").createServer().listen(0, function () { console.log(this.address().port); this.close(); })'],
      {
        encoding: 'utf8',
      },
    ).stdout.trim();
    expect(spawnSync(process.execPath, check, { env: { ...process.env, PORT: closed }, timeout: 10_000 }).status).toBe(1);

    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('examples/batch', () => {
  const compose = read('examples/batch/compose.yaml');
  const found = services(compose);

  it('runs three workers of the image on a Redis that never evicts, and keeps the bullmq package through the prune', () => {
    expect([...found.keys()].sort()).toEqual(['redis', 'worker']);
    expect(found.get('redis')).toMatch(/"--maxmemory-policy", "noeviction"/);
    const worker = found.get('worker')!;
    expect(worker).toMatch(/entrypoint: \["node", "dist\/cli\.js", "worker"\]/);
    expect(worker).toMatch(/replicas: 3/);
    expect(worker).toMatch(/REDIS_URL: redis:\/\/redis:6379/);
    // The model's server and key, and the browser's switches, reach the worker from the caller's environment.
    for (const name of ['MODEL_NAME', 'MODEL_BASE_URL', 'MODEL_API_KEY', 'CHROME_ARGS']) {
      expect(worker).toMatch(new RegExp(`^\\s+${name}: \\$\\{${name}:-`, 'm'));
    }
    expect(worker).toMatch(/condition: service_healthy/);
    const [build] = stages(read('Dockerfile'));
    const prune = build!.find((each) => each.op === 'RUN' && /npm prune\b/.test(each.args))!.args;
    expect(prune.slice(prune.indexOf('npm prune'))).toMatch(/npm install --no-save --omit=dev .*"bullmq@/);
  });
});
