import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BrowserLaunchError,
  ConnectionClosedError,
  Sdk,
  SdkStateError,
  TargetClosedError,
  TimeoutError,
  type LogLine,
} from '../../src/index.js';
import { startFixtureServers, type FixtureServers } from '../fixtures/server.js';
import { descendants, processAlive, profileOf, sdkOptions, waitUntilGone } from '../helpers.js';

let servers: FixtureServers;
beforeAll(async () => {
  servers = await startFixtureServers();
});
afterAll(async () => {
  await servers?.close();
});

describe('browser lifecycle', () => {
  it('rejects every pending command within a second when Chrome dies', async () => {
    const sdk = new Sdk(sdkOptions());
    await sdk.init();
    const page = sdk.context.pages()[0]!;
    await page.goto(servers.a.url('/frames.html'));
    const oop = page.frames().find((frame) => frame.isOutOfProcess())!;
    const pending = [
      page.evaluate(() => new Promise(() => undefined)),
      page.evaluate(() => new Promise(() => undefined)),
      oop.evaluate(() => new Promise(() => undefined)),
      page.locator('#same >> #c').evaluate(() => new Promise(() => undefined)),
    ].map((promise) =>
      promise.then(
        () => 'resolved',
        (error: unknown) => error,
      ),
    );
    // Let the commands reach the browser before the kill.
    await page.evaluate(() => 1);
    const killedAt = Date.now();
    process.kill(sdk.browserProcessId()!, 'SIGKILL');
    const outcomes = await Promise.all(pending);
    expect(Date.now() - killedAt).toBeLessThan(1000);
    for (const outcome of outcomes) expect(outcome).toBeInstanceOf(ConnectionClosedError);
    await expect(page.evaluate(() => 1)).rejects.toBeInstanceOf(ConnectionClosedError);
    await sdk.close();
  });

  it('leaves no Chrome process and no profile behind when the parent is SIGKILLed', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join('test', 'fixtures', 'launch-and-wait.ts'), servers.b.url('/leaf.html')],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const line = await new Promise<string>((resolve, reject) => {
      let text = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        if (text.includes('\n')) resolve(text.split('\n')[0]!);
      });
      child.once('exit', (code) => reject(new Error(`launcher exited early with ${code}`)));
    });
    const { pid } = JSON.parse(line) as { pid: number };
    const profile = profileOf(pid)!;
    const tree = [pid, ...descendants(pid)];
    expect(tree.length).toBeGreaterThan(2); // browser, zygotes, renderers...
    expect(existsSync(profile)).toBe(true);
    child.kill('SIGKILL');
    expect(await waitUntilGone(tree, 10_000)).toEqual([]);
    // The wrapper removes the temporary profile once Chrome is gone.
    const deadline = Date.now() + 5000;
    while (existsSync(profile) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(profile)).toBe(false);
  });

  it('removes the temporary profile on close, and close is idempotent', async () => {
    const sdk = new Sdk(sdkOptions());
    expect(() => sdk.context).toThrow(SdkStateError);
    await sdk.init();
    const pid = sdk.browserProcessId()!;
    const profile = profileOf(pid)!;
    expect(profile.startsWith(os.tmpdir())).toBe(true);
    expect(existsSync(profile)).toBe(true);
    await Promise.all([sdk.close(), sdk.close()]);
    await sdk.close();
    expect(existsSync(profile)).toBe(false);
    expect(processAlive(pid)).toBe(false);
    expect(() => sdk.context).toThrow(/closed/);
    await expect(sdk.init()).rejects.toBeInstanceOf(SdkStateError);
  });

  it('gives each command a deadline, and a busy page does not block the others', async () => {
    const sdk = new Sdk(sdkOptions({ cdpTimeoutMs: 800 }));
    await sdk.init();
    try {
      const calm = sdk.context.pages()[0]!;
      await calm.goto(servers.a.url('/leaf.html'));
      const busy = await sdk.context.newPage();
      await busy.goto(servers.b.url('/busy.html'));
      const started = Date.now();
      await expect(busy.evaluate('for (;;) {}')).rejects.toBeInstanceOf(TimeoutError);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(await calm.title()).toBe('Leaf');
    } finally {
      await sdk.close();
    }
  });

  it('rejects pending work at once when a page crashes, and the rest keeps working', async () => {
    const sdk = new Sdk(sdkOptions());
    await sdk.init();
    try {
      const page = sdk.context.pages()[0]!;
      await page.goto(servers.a.url('/leaf.html'));
      const doomed = await sdk.context.newPage();
      await doomed.goto(servers.b.url('/leaf.html'));
      const pending = doomed.evaluate(() => new Promise(() => undefined)).catch((error: unknown) => error);
      void doomed.goto('chrome://crash').catch(() => undefined);
      const started = Date.now();
      expect(await pending).toBeInstanceOf(TargetClosedError);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(doomed.isClosed()).toBe(true);
      expect(sdk.context.pages()).not.toContain(doomed);
      expect(await page.title()).toBe('Leaf');
    } finally {
      await sdk.close();
    }
  });

  it('explains a missing browser binary', async () => {
    const sdk = new Sdk(sdkOptions({ localBrowserLaunchOptions: { executablePath: '/nonexistent/chrome' } }));
    const error = await sdk.init().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrowserLaunchError);
    expect((error as Error).message).toContain('/nonexistent/chrome');
    expect(() => sdk.context).toThrow(SdkStateError);
  });

  it('carries messages of 50 MB and more over the pipe', async () => {
    const sdk = new Sdk(sdkOptions());
    await sdk.init();
    try {
      const size = 50 * 1024 * 1024 + 17;
      const text = await sdk.context.pages()[0]!.evaluate((n: number) => 'x'.repeat(n - 1) + 'y', size);
      expect(text.length).toBe(size);
      expect(text.endsWith('xy')).toBe(true);
    } finally {
      await sdk.close();
    }
  });

  it('sends log lines to the logger callback, filtered by verbose, with secrets redacted', async () => {
    const lines: LogLine[] = [];
    const sdk = new Sdk(sdkOptions({ verbose: 1, logger: (line) => lines.push(line) }));
    sdk.logger.info('test', 'hello', { apiKey: 'sk-very-secret', nested: { authorization: 'Bearer x' }, ok: 1 });
    sdk.logger.debug('test', 'too detailed');
    await sdk.init();
    await sdk.close();
    expect(lines.map((line) => line.message)).toEqual(expect.arrayContaining(['hello', 'Launching Chrome', 'Chrome is ready']));
    expect(lines.some((line) => line.message === 'too detailed')).toBe(false);
    expect(JSON.stringify(lines)).not.toContain('sk-very-secret');
    expect(JSON.stringify(lines)).not.toContain('Bearer x');
    expect(lines.every((line) => line.level <= 1)).toBe(true);
  });
});
