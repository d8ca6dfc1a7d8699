import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { findChrome } from '../src/browser/findChrome.js';
import { Sdk, Stagehand, type Page, type SdkOptions, type StagehandPage } from '../src/index.js';
import { startFixtureServers, type FixtureServers } from './fixtures/server.js';
import { startFakeModel, type FakeModel } from './support/fake-model.js';

export const CHROME = findChrome();

/** --site-per-process makes the localhost and 127.0.0.1 frames really live in other processes. */
export const TEST_ARGS = ['--site-per-process', '--disable-gpu'];

/**
 * What a test's hosted server needs beyond its keys: the fixture servers are on loopback, which a
 * hosted session may reach only when the operator allows it.
 */
export const HOSTED_TEST_ENV = { HOSTED_ALLOW_NETWORKS: '127.0.0.0/8,::1' };

export function sdkOptions(extra: SdkOptions = {}): SdkOptions {
  return {
    verbose: 0,
    disablePino: true,
    ...extra,
    localBrowserLaunchOptions: {
      executablePath: CHROME,
      args: TEST_ARGS,
      ...extra.localBrowserLaunchOptions,
    },
  };
}

export interface DebugChrome {
  process: ChildProcess;
  wsUrl: string;
  port: number;
  userDataDir: string;
  alive(): boolean;
  kill(): Promise<void>;
}

/**
 * A Chrome that somebody else started, with a TCP debug port: what users attach to. Ready when
 * Chrome prints its "DevTools listening" line. `env` is added to its environment (HOME, say).
 */
export async function startDebugChrome(env: Record<string, string> = {}): Promise<DebugChrome> {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'tendril-test-debug-'));
  const child = spawn(
    CHROME,
    [
      '--headless',
      '--no-sandbox',
      ...TEST_ARGS,
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--remote-debugging-port=0',
      `--user-data-dir=${userDataDir}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const wsUrl = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`debug Chrome exited early (${code}): ${text.slice(-500)}`)));
  });
  return {
    process: child,
    wsUrl,
    port: Number(new URL(wsUrl).port),
    userDataDir,
    alive: () => child.exitCode === null && child.signalCode === null,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      // Chrome's helper processes can still be writing into the profile for a moment.
      await rm(userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
}

/** Whether a process with this pid exists (a zombie counts as gone). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.split(' ')[2] !== 'Z';
  } catch {
    return true;
  }
}

/** All descendants of a process, read from /proc. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Exited meanwhile.
    }
  }
  const out: number[] = [];
  const visit = (p: number) => {
    for (const child of children.get(p) ?? []) {
      out.push(child);
      visit(child);
    }
  };
  visit(pid);
  return out;
}

/** Chrome's own command line names its profile; the temporary ones are ours to check. */
export function profileOf(pid: number): string | undefined {
  const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  return args.find((arg) => arg.startsWith('--user-data-dir='))?.slice('--user-data-dir='.length);
}

/** There is no event for the exit of a process that is not our child, so this polls, bounded. */
export async function waitUntilGone(pids: number[], withinMs: number): Promise<number[]> {
  const deadline = Date.now() + withinMs;
  let alive = pids.filter(processAlive);
  while (alive.length && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    alive = alive.filter(processAlive);
  }
  return alive;
}

export interface BrowserFixture {
  servers: FixtureServers;
  sdk: Sdk;
  page: Page;
}

/** useBrowser's with `stagehand`: the Stagehand entry's instance and its first page. */
export interface StagehandFixture {
  servers: FixtureServers;
  sdk: Stagehand;
  page: StagehandPage;
}

/**
 * For a suite that shares one browser: starts the fixture servers and an Sdk before the suite and
 * closes both after it. Read the fields inside tests (they are set in beforeAll).
 */
export function useBrowser(options: SdkOptions, flags: { stagehand: true }): StagehandFixture;
export function useBrowser(options?: SdkOptions, flags?: { stagehand?: false }): BrowserFixture;
export function useBrowser(options: SdkOptions = {}, { stagehand = false } = {}): BrowserFixture {
  const fixture = {} as BrowserFixture;
  beforeAll(async () => {
    fixture.servers = await startFixtureServers();
    // `stagehand`: the Stagehand entry's instance, whose pages have Stagehand's shapes (StagehandPage).
    fixture.sdk = stagehand ? new Stagehand(sdkOptions(options) as never) : new Sdk(sdkOptions(options));
    await fixture.sdk.init();
    fixture.page = fixture.sdk.context.pages()[0]!;
  });
  afterAll(async () => {
    await fixture.sdk?.close();
    await fixture.servers?.close();
  });
  return fixture;
}

type StagehandOptions = NonNullable<ConstructorParameters<typeof Stagehand>[0]>;

/** The Stagehand entry's options for a test: quiet, on the test Chromium, and `extra`. */
export function stagehandOptions(extra: StagehandOptions = {}): StagehandOptions {
  return {
    env: 'LOCAL',
    verbose: 0,
    disablePino: true,
    ...extra,
    localBrowserLaunchOptions: { headless: true, executablePath: CHROME, args: TEST_ARGS },
  };
}

/**
 * For a suite of the Stagehand entry against the fake model: starts the fixture servers and a fake
 * model, then `make` gives the instance (it knows the model's URL only then), which is initialised
 * here; all three are closed after the suite.
 */
export function useStagehandWithModel(make: (servers: FixtureServers, fake: FakeModel) => Stagehand): void {
  let parts: { servers: FixtureServers; fake: FakeModel; stagehand?: Stagehand } | undefined;
  beforeAll(async () => {
    const [servers, fake] = await Promise.all([startFixtureServers(), startFakeModel()]);
    parts = { servers, fake };
    parts.stagehand = make(servers, fake);
    await parts.stagehand.init();
  });
  afterAll(async () => {
    await parts?.stagehand?.close();
    await Promise.all([parts?.servers.close(), parts?.fake.close()]);
  });
}
