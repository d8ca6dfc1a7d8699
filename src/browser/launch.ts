import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { Connection } from '../cdp/connection.js';
import { PipeTransport } from '../cdp/pipeTransport.js';
import { BrowserLaunchError, ConnectionClosedError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { LocalBrowserLaunchOptions } from '../types.js';
import { withDeadline } from '../util/time.js';
import type { BrowserHandle } from './browser.js';
import { findChrome } from './findChrome.js';
import { startProxyForwarder, type ProxyForwarder } from './proxyForwarder.js';

const DEFAULT_WINDOW = { width: 1280, height: 720 };

/** Chrome runs under a POSIX sh wrapper everywhere but Windows (see WRAPPER). */
const WRAPPED = process.platform !== 'win32';

/*
 * On POSIX, Chrome runs under a small sh that outlives it. Chrome already exits by itself when the
 * debugging pipe closes (so it can never outlive us, even after SIGKILL); the sh then removes the
 * temporary profile, which we could no longer do ourselves. It closes its own copies of the pipe
 * ends, so that Chrome's death is seen as end-of-file at once, and prints Chrome's pid.
 * After that the sh writes nowhere: its stdout and stderr are pipes to a Node process that may be
 * gone by then (process.exit(), an uncaught exception), and a write into a pipe nobody reads, such
 * as the shell's own "Killed" report of Chrome's death, would end it by SIGPIPE before it removed
 * the profile. Chrome keeps its own copy of the stderr pipe, whose tail explains a failed start.
 */
export const WRAPPER = [
  'trap : HUP INT TERM',
  '"$@" >/dev/null &',
  'pid=$!',
  'exec 3<&- 4>&-',
  'echo "$pid"',
  'exec >/dev/null 2>&1',
  "trap '' PIPE",
  // Wait once before looking: a Chrome that failed at once may already be reaped, and `kill -0`
  // alone would then report status 0. The loop covers a wait cut short by a trapped signal.
  'wait "$pid"; status=$?',
  'while kill -0 "$pid" 2>/dev/null; do wait "$pid"; status=$?; done',
  // Chrome's helper processes may still write into the profile for a moment after it exits.
  'if [ -n "$TENDRIL_REMOVE_PROFILE" ]; then',
  '  for try in 1 2 3 4 5 6 7 8 9 10; do',
  '    rm -rf -- "$TENDRIL_REMOVE_PROFILE" 2>/dev/null; [ -e "$TENDRIL_REMOVE_PROFILE" ] || break; sleep 0.1',
  '  done',
  'fi',
  // Chrome's own exit status, so a failed start is reported with it.
  'exit "$status"',
].join('\n');

/** The switches Tendril adds of its own accord: `ignoreDefaultArgs` leaves out all or some of them. */
const DEFAULT_ARGS = [
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-breakpad',
  '--disable-client-side-phishing-detection',
  '--disable-popup-blocking',
  '--disable-prompt-on-repost',
  '--metrics-recording-only',
  '--password-store=basic',
  '--use-mock-keychain',
  // Background tabs must keep running timers and rendering: an agent works on several pages.
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-renderer-backgrounding',
  // Headless Chrome gives every new browser context two WebUI pages of its own for the omnibox's
  // popup, which no page of an agent's ever shows: about 40% of a fresh context's CPU
  // (docs/benchmarks.md). The views popup Chrome falls back to costs nothing until shown.
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
  // After each navigation Chrome starts a spare renderer for the next one, in the navigation's
  // browser context: a job's context is closed before it could use it, so every fresh context
  // paid for a renderer nobody used (about 65-100 ms of Chromium's CPU per batch job of a corpus
  // page, scripts/bench/batch-cpu.ts). A navigation that needs a process starts one then.
  '--disable-features=SpareRendererForSitePerProcess',
];
const HEADLESS_ARGS = ['--disable-gpu', '--hide-scrollbars', '--mute-audio'];
const UNSEEN = '--disable-blink-features=AutomationControlled';

export function chromeArgs(options: LocalBrowserLaunchOptions, userDataDir: string): string[] {
  const ignored = options.ignoreDefaultArgs;
  const ours = (list: string[]) => (ignored === true ? [] : list.filter((arg) => !(Array.isArray(ignored) && ignored.includes(arg))));
  const args = ['--remote-debugging-pipe', `--user-data-dir=${userDataDir}`, ...ours(DEFAULT_ARGS)];
  if (options.headless !== false) args.push('--headless', ...ours(HEADLESS_ARGS));
  const sandbox = options.chromiumSandbox ?? process.getuid?.() !== 0;
  if (!sandbox) args.push('--no-sandbox');
  const size = options.viewport ?? DEFAULT_WINDOW;
  args.push(`--window-size=${size.width},${size.height}`);
  const { locale, proxy, deviceScaleFactor, port } = options;
  // --lang is the window's language; headless Chrome takes navigator.language from --accept-lang.
  if (locale) args.push(`--lang=${locale}`, `--accept-lang=${locale}`);
  if (proxy) args.push(`--proxy-server=${proxy.server}`, ...(proxy.bypass ? [`--proxy-bypass-list=${proxy.bypass}`] : []));
  if (options.ignoreHTTPSErrors) args.push('--ignore-certificate-errors');
  if (deviceScaleFactor !== undefined) args.push(`--force-device-scale-factor=${deviceScaleFactor}`);
  if (options.hasTouch) args.push('--touch-events=enabled');
  if (options.devtools) args.push('--auto-open-devtools-for-tabs');
  if (port !== undefined) args.push(`--remote-debugging-port=${port}`);
  const extra = options.args ?? [];
  args.push(...extra);
  // Chrome sets navigator.webdriver for --remote-debugging-pipe, which Tendril uses for its own
  // reasons (no TCP port), not to tell pages anything: the browser shows pages what a Chrome with
  // a debugging port shows them. A switch of the caller's that names the feature, or
  // --enable-automation, decides instead.
  if (!extra.some((arg) => arg === '--enable-automation' || arg.includes('AutomationControlled'))) {
    args.push(...ours([UNSEEN]));
  }
  args.push('about:blank');
  return keepEnabled(FEATURE_LISTS.reduce(mergeList, args));
}

/**
 * A feature the caller enables is left out of the disabled list, where Tendril's own defaults put
 * it (Chrome disables a feature named in both): a caller who wants Chrome's omnibox WebUI back
 * passes --enable-features=WebUIOmniboxPopup.
 */
function keepEnabled(args: string[]): string[] {
  const [enable, disable] = FEATURE_LISTS;
  const enabled = new Set(
    args
      .find((arg) => arg.startsWith(enable!))
      ?.slice(enable!.length)
      .split(','),
  );
  if (!enabled.size) return args;
  return args.flatMap((arg) => {
    if (!arg.startsWith(disable!)) return [arg];
    const kept = arg
      .slice(disable!.length)
      .split(',')
      .filter((feature) => !enabled.has(feature));
    return kept.length ? [disable + kept.join(',')] : [];
  });
}

/** The switches of which Chrome reads only the last one given. */
const FEATURE_LISTS = ['--enable-features=', '--disable-features=', '--disable-blink-features='];

/** The caller's list and ours become one, in the place of the first, so that neither is lost. */
function mergeList(args: string[], prefix: string): string[] {
  const lists = args.filter((arg) => arg.startsWith(prefix));
  if (lists.length < 2) return args;
  const features = [...new Set(lists.flatMap((arg) => arg.slice(prefix.length).split(',')).filter(Boolean))];
  const first = args.findIndex((arg) => arg.startsWith(prefix));
  const out = args.filter((arg) => !arg.startsWith(prefix));
  out.splice(first, 0, prefix + features.join(','));
  return out;
}

// One 'exit' listener for all browsers of this process, rather than one each.
const live = new Set<LaunchedBrowser>();
/** Profiles of closed browsers still being removed: a process that exits meanwhile finishes the job. */
const removing = new Set<string>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const each of live) each.killNow();
    for (const folder of removing) rmSync(folder, { recursive: true, force: true });
  });
}
function track(browser: LaunchedBrowser): void {
  installExitHook();
  live.add(browser);
}

/**
 * Takes a closed browser's profile away at once (a rename: its path is gone when close() resolves)
 * and deletes it off the caller's path: a profile holds a few hundred files, and deleting them took
 * longer than closing the browser itself.
 */
async function removeProfile(folder: string): Promise<void> {
  const trash = `${folder}-closed`;
  const target = await rename(folder, trash).then(
    () => trash,
    () => folder,
  );
  removing.add(target);
  void rm(target, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })
    .catch(() => undefined)
    .finally(() => removing.delete(target));
}

class LaunchedBrowser implements BrowserHandle {
  readonly kind = 'launched' as const;
  #closing: Promise<void> | undefined;

  constructor(
    readonly connection: Connection,
    private readonly child: ChildProcess,
    readonly pid: number,
    readonly tempProfile: string | undefined,
    private readonly logger: Logger,
    /** The loopback proxy that adds the proxy's credentials, when it needs them. */
    private readonly forwarder?: ProxyForwarder,
  ) {
    track(this);
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    live.delete(this);
    const exited = exitOf(this.child);
    if (this.tempProfile) {
      // The profile is about to be deleted, so a graceful shutdown that flushes it buys nothing.
      // Killing the whole tree at once also means no helper process still writes into the profile
      // while we remove it.
      killTree(this.child, this.pid);
    } else if (!this.connection.closed) {
      // A profile that is kept gets a clean exit, so cookies and storage reach the disk.
      await this.connection.rootSession.send('Browser.close', undefined, { timeoutMs: 3000 }).catch(() => undefined);
    }
    try {
      await withDeadline(exited, 5000, 'Waiting for Chrome to exit');
    } catch {
      this.logger.info('browser', 'Chrome did not exit within 5 s of Browser.close; killing it');
      killTree(this.child, this.pid);
      await withDeadline(exited, 5000, 'Waiting for Chrome to die').catch(() => undefined);
    }
    this.connection.close();
    await this.forwarder?.close();
    // Killed with its wrapper, Chrome may still be dying a moment after the wrapper is reported gone.
    if (this.tempProfile && WRAPPED) await processGone(this.pid, 2000);
    if (this.tempProfile) await removeProfile(this.tempProfile);
  }

  /**
   * Synchronous last resort from process 'exit', where nothing async can run: kill Chrome alone,
   * so the POSIX wrapper lives on to remove the profile once Chrome's helpers are gone too.
   */
  killNow(): void {
    try {
      process.kill(this.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    if (this.tempProfile && this.child.pid === this.pid) rmSync(this.tempProfile, { recursive: true, force: true });
  }
}

/**
 * Kills Chrome with every helper process it started. Under the POSIX wrapper they all share the
 * wrapper's process group (it is started detached, as the group's leader).
 */
function killTree(child: ChildProcess, chromePid: number | undefined): void {
  try {
    if (WRAPPED && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    else if (chromePid !== undefined) process.kill(chromePid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Resolves once `pid` has exited (or is a zombie waiting to be reaped), or after `limitMs`. Chrome
 * is no child of ours under the wrapper, so no event says when it is gone: it is looked at every
 * few milliseconds, which is brief (SIGKILL was already sent).
 */
async function processGone(pid: number, limitMs: number): Promise<void> {
  const until = Date.now() + limitMs;
  // Where there is a /proc, a zombie (dead, not yet reaped by init) counts as gone.
  const procfs = existsSync('/proc/self/stat');
  for (;;) {
    try {
      process.kill(pid, 0);
      if (procfs && readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] === 'Z') return;
    } catch {
      return;
    }
    if (Date.now() > until) return;
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** What a host of many browsers (the hosted server) sets for each one beyond the public options. */
export interface LaunchHosting {
  /** Chrome's whole environment, instead of this process's. */
  env?: NodeJS.ProcessEnv;
  /** A folder (holding the profile) removed with the browser, even when this process dies first. */
  removeOnExit?: string;
}

/** Starts Chrome with a fresh profile (unless given one) and connects to it over the debugging pipe. */
export async function launchChrome(
  options: LocalBrowserLaunchOptions,
  logger: Logger,
  commandTimeoutMs: number,
  hosting: LaunchHosting = {},
): Promise<BrowserHandle> {
  const executable = findChrome(options.executablePath);
  const tempProfile = options.userDataDir ? undefined : mkdtempSync(path.join(os.tmpdir(), 'tendril-profile-'));
  const userDataDir = options.userDataDir ?? tempProfile!;
  const removeOnExit = hosting.removeOnExit ?? (tempProfile && !options.preserveUserDataDir ? tempProfile : undefined);
  const { proxy } = options;
  const forwarder =
    proxy && (proxy.username !== undefined || proxy.password !== undefined) ? await startProxyForwarder(proxy, logger) : undefined;
  const args = chromeArgs(forwarder ? { ...options, proxy: { server: forwarder.server, bypass: proxy?.bypass } } : options, userDataDir);
  logger.info('browser', 'Launching Chrome', { executable, headless: options.headless !== false });

  const child = WRAPPED
    ? spawn('/bin/sh', ['-c', WRAPPER, 'tendril-chrome', executable, ...args], {
        // Its own process group, so close() can kill Chrome's whole tree in one signal. Chrome still
        // exits with us: it ends when the debugging pipe closes.
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
        env: { ...(hosting.env ?? process.env), TENDRIL_REMOVE_PROFILE: removeOnExit ?? '' },
      })
    : spawn(executable, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], env: hosting.env });

  // Keep the tail of Chrome's stderr: when it fails to start, that is where the reason is.
  let stderrTail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString()).slice(-4000);
  });
  const stderrClosed = child.stderr ? once(child.stderr, 'close').then(() => undefined) : Promise.resolve();
  const failed = async (message: string, cause?: unknown) => {
    killTree(child, child.pid);
    void forwarder?.close();
    // Chrome's last words may still be on their way: the pipe ends once Chrome and its helpers
    // are gone (the wrapper keeps no copy of it), and is read to that end, within a bound.
    await withDeadline(stderrClosed, 1000, "Reading Chrome's output").catch(() => undefined);
    if (removeOnExit) rmSync(removeOnExit, { recursive: true, force: true });
    const tail = stderrTail.trim().split('\n').slice(-8).join('\n');
    return new BrowserLaunchError(`${message}${tail ? `\nChrome's last output:\n${tail}` : ''}`, { cause });
  };

  let started = false;
  const spawnError = new Promise<never>((_, reject) => {
    child.once('error', (error) => {
      if (!started) void failed(`Could not start ${executable}: ${error.message}`, error).then(reject);
    });
    child.once('exit', (code, signal) => {
      if (!started) void failed(`Chrome exited during start-up (${signal ?? `exit code ${code}`}).`).then(reject);
    });
  });
  spawnError.catch(() => undefined);

  let chromePid = child.pid ?? -1;
  if (WRAPPED) {
    const pidLine = new Promise<number>((resolve) => {
      let text = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const newline = text.indexOf('\n');
        if (newline !== -1) resolve(Number(text.slice(0, newline)));
      });
    });
    chromePid = await Promise.race([pidLine, spawnError]);
  }

  const transport = new PipeTransport(child.stdio[3] as Writable, child.stdio[4] as Readable);
  const connection = new Connection(transport, {
    commandTimeoutMs,
    trace: logger.verbose >= 2 ? (line) => logger.debug('cdp', line) : undefined,
  });
  const timeoutMs = options.connectTimeoutMs ?? 30_000;
  try {
    const version = await Promise.race([connection.rootSession.send('Browser.getVersion', undefined, { timeoutMs }), spawnError]);
    started = true;
    logger.info('browser', 'Chrome is ready', { product: version.product, pid: chromePid });
  } catch (error) {
    connection.close();
    if (error instanceof BrowserLaunchError) throw error;
    if (error instanceof ConnectionClosedError) {
      // The debugging pipe closes as Chrome exits, a moment before its exit is reported with the reason.
      const exit = await withDeadline(spawnError, 2000, "Chrome's exit").catch((reason: unknown) => reason);
      if (exit instanceof BrowserLaunchError) throw exit;
      throw await failed('Chrome closed the debugging pipe during start-up.', error);
    }
    throw await failed(`Chrome did not answer on the debugging pipe within ${timeoutMs} ms.`, error);
  }
  return new LaunchedBrowser(connection, child, chromePid, removeOnExit, logger, forwarder);
}
