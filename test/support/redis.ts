// A real redis-server (Debian's package; .ci/run installs it) on a loopback port, for the tests.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface RedisServer {
  port: number;
  child: ChildProcess;
  /** redis-cli against this server: to look at what the cache wrote, not through the cache. */
  cli(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** Ready when redis-server logs that it accepts connections: it listens by then. */
export async function startRedis(port: number, extra: string[] = []): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-redis-'));
  const args = ['--save', '', '--appendonly', 'no', '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...extra];
  const auth = extra.includes('--requirepass') ? ['--no-auth-warning', '-a', extra[extra.indexOf('--requirepass') + 1]!] : [];
  return spawnRedis(port, dir, args, 'Ready to accept connections', auth);
}

/**
 * A Sentinel (redis-server in sentinel mode) watching the master at `masterPort` under `name`;
 * ready once it logs that it monitors it. It rewrites its configuration file, so it gets one of its own.
 */
export async function startSentinel(port: number, name: string, masterPort: number, extra: string[] = []): Promise<RedisServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-sentinel-'));
  const config = path.join(dir, 'sentinel.conf');
  writeFileSync(config, `port ${port}\nbind 127.0.0.1\ndir ${dir}\nsentinel monitor ${name} 127.0.0.1 ${masterPort} 1\n`);
  return spawnRedis(port, dir, [config, '--sentinel', ...extra], `+monitor master ${name}`, []);
}

async function spawnRedis(port: number, dir: string, args: string[], readyText: string, auth: string[]): Promise<RedisServer> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    let output = '';
    const fail = (error: Error) => (clearTimeout(timer), reject(error));
    const timer = setTimeout(() => fail(new Error(`redis-server on port ${port} was not ready within 15 s:\n${output}`)), 15_000);
    child.on('error', (error: NodeJS.ErrnoException) =>
      fail(
        error.code === 'ENOENT'
          ? new Error('redis-server is not installed: these tests need it. Install it with `apt-get install redis-server` (.ci/run does).')
          : error,
      ),
    );
    child.on('exit', (code, signal) => fail(new Error(`redis-server exited (${code ?? signal}) before it was ready:\n${output}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(readyText)) clearTimeout(timer), resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  });
  try {
    await ready;
  } catch (error) {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    child,
    cli: async (...command) => (await promisify(execFile)('redis-cli', ['-p', String(port), ...auth, ...command])).stdout.trim(),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface RedisCluster {
  nodes: RedisServer[];
  /** `host:port` of every node, as REDIS_CLUSTER_NODES takes them. */
  seeds: string;
  stop(): Promise<void>;
}

/**
 * `count` masters (no replicas) on loopback, slots spread by `redis-cli --cluster create`; ready
 * once every node reports cluster_state:ok. Each node's bus port is chosen too (cluster-port), as
 * port + 10000 may be taken or past 65535.
 */
export async function startRedisCluster(count: number, extra: string[] = []): Promise<RedisCluster> {
  const nodes: RedisServer[] = [];
  const stop = async () => void (await Promise.all(nodes.map((node) => node.stop())));
  try {
    for (let i = 0; i < count; i++) {
      const [port, bus] = [await freePort(), await freePort()];
      const cluster = [
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-port',
        String(bus),
        '--cluster-node-timeout',
        '2000',
      ];
      nodes.push(await startRedis(port, [...cluster, ...extra]));
    }
    const auth = extra.includes('--requirepass') ? ['--no-auth-warning', '-a', extra[extra.indexOf('--requirepass') + 1]!] : [];
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    const create = ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes', ...auth];
    await promisify(execFile)('redis-cli', create, { timeout: 30_000 });
    const deadline = Date.now() + 30_000;
    for (const node of nodes) {
      while (!/cluster_state:ok/.test(await node.cli('CLUSTER', 'INFO'))) {
        if (Date.now() > deadline)
          throw new Error(`The Redis Cluster on ${addresses.join(', ')} did not reach cluster_state:ok within 30 s.`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    return { nodes, seeds: addresses.join(','), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
