// The command line, run as a user runs it: a child process, its output and its exit code.

import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { HostedApi } from '../src/browser/hosted.js';
import { CHROME, processAlive, TEST_ARGS } from './helpers.js';

const MAIN = ['--import', 'tsx', 'src/cli/main.ts'];

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function run(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [...MAIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk));
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  return { child, stdout: () => out, stderr: () => err, exit };
}

/** Resolves with the first match of `pattern` in the child's stdout (or rejects when it exits first). */
function waitForLine(started: Run, pattern: RegExp): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = pattern.exec(started.stdout());
      if (match) resolve(match);
    };
    started.child.stdout!.on('data', check);
    void started.exit.then((code) => reject(new Error(`exited ${code} before printing ${pattern}: ${started.stderr()}`)));
    check();
  });
}

/** Processes whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe('tendril hosted serve', () => {
  it('prints its URL once ready, serves sessions, and on SIGTERM ends them, closes their browsers and exits 0', async () => {
    const server = run(['hosted', 'serve', '--port', '0', '--max-sessions', '2', '--quiet'], {
      HOSTED_API_KEYS: 'cli-key',
      CHROME_PATH: CHROME,
      CHROME_ARGS: TEST_ARGS.join(' '),
    });
    try {
      const [, url] = await waitForLine(server, /listening on (http:\/\/\S+)/);
      const api = new HostedApi(url!, 'cli-key', 30_000);
      const session = await api.createSession({ projectId: 'cli' });
      expect(session.status).toBe('RUNNING');
      const browsers = childrenOf(server.child.pid!);
      expect(browsers.length).toBeGreaterThan(0);
      server.child.kill('SIGTERM');
      expect(await server.exit).toBe(0);
      expect(browsers.filter(processAlive)).toEqual([]);
      // It stopped accepting: the port is closed.
      await expect(fetch(`${url}/v1/sessions`)).rejects.toThrow();
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('exits 2 with the usage on a wrong command line, and 1 naming the fix on a bad configuration', async () => {
    const unknown = run(['hosted', 'serve', '--prot', '3000']);
    expect(await unknown.exit).toBe(2);
    expect(unknown.stderr()).toMatch(/--prot/);
    expect(unknown.stderr()).toMatch(/tendril hosted serve \[flags\]/);

    const nothing = run([]);
    expect(await nothing.exit).toBe(2);
    expect(nothing.stderr()).toMatch(/Usage: tendril/);

    const noKeys = run(['hosted', 'serve', '--port', '0'], { HOSTED_API_KEYS: '' });
    expect(await noKeys.exit).toBe(1);
    expect(noKeys.stderr()).toMatch(/HOSTED_API_KEYS is empty/);
  });
});
