// A real nginx (Debian's package; .ci/run installs it) in front of the tests' servers: its own
// prefix, configuration, pid and error log in a temporary folder, listening on one loopback port.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface Nginx {
  url: string;
  child: ChildProcess;
  /** nginx's error log so far. */
  errorLog(): string;
  stop(): Promise<void>;
}

const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

/**
 * Starts nginx with `serverBlock` (the text of a conf.d file: upstreams, maps and a server) inside
 * an http block of its own. Ready once its port accepts a connection.
 */
export async function startNginx(port: number, serverBlock: string): Promise<Nginx> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-nginx-'));
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `  ${name}_temp_path ${dir}/${name};`).join('\n');
  const conf = [
    // As root, workers would run as nobody, who cannot write the temporary folders here.
    process.getuid?.() === 0 ? 'user root;' : '',
    'worker_processes 1;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 512; }',
    'http {',
    '  access_log off;',
    temp,
    serverBlock,
    '}',
  ].join('\n');
  writeFileSync(path.join(dir, 'nginx.conf'), conf);
  const child = spawn(NGINX, ['-p', dir, '-e', `${dir}/error.log`, '-c', `${dir}/nginx.conf`, '-g', 'daemon off;'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const errorLog = () => {
    try {
      return readFileSync(path.join(dir, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT');
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nginx did not listen on ${port} within 15 s:\n${output}${errorLog()}`)), 15_000);
      child.once('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        reject(
          error.code === 'ENOENT'
            ? new Error(`nginx is not installed (${NGINX}): these tests need it. Install it with \`apt-get install nginx\` (.ci/run does).`)
            : error,
        );
      });
      child.once(
        'exit',
        (code) => (clearTimeout(timer), reject(new Error(`nginx exited (${code}) before it listened:\n${output}${errorLog()}`))),
      );
      // nginx says nothing when ready: it is once its port takes a connection.
      const probe = () => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => (socket.destroy(), clearTimeout(timer), resolve()));
        socket.once('error', () => (socket.destroy(), child.exitCode === null && setTimeout(probe, 50)));
      };
      probe();
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, child, errorLog, stop };
}
