// A real redis-server (Debian's package; .ci/run installs it) on a loopback port, for the tests.

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
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
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    let output = '';
    const fail = (error: Error) => (clearTimeout(timer), reject(error));
    const timer = setTimeout(() => fail(new Error(`redis-server on port ${port} was not ready within 15 s:\n${output}`)), 15_000);
    child.on('error', (error: NodeJS.ErrnoException) =>
      fail(error.code === 'ENOENT' ? new Error('redis-server is not installed: these tests need it. Install it with `apt-get install redis-server` (.ci/run does).') : error),
    );
    child.on('exit', (code, signal) => fail(new Error(`redis-server exited (${code ?? signal}) before it was ready:\n${output}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) clearTimeout(timer), resolve();
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
  const auth = extra.includes('--requirepass') ? ['--no-auth-warning', '-a', extra[extra.indexOf('--requirepass') + 1]!] : [];
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

