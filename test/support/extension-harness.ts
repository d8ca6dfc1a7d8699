// Chromium with an unpacked MV3 extension loaded over the debugging pipe (Extensions.loadUnpacked,
// which needs --enable-unsafe-extension-debugging), and calls into its service worker's
// `globalThis.harness`. Shared by the tests that run Tendril inside an extension.

import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
// @ts-expect-error: a plain ES module shared with esbuild.config.mjs, without types
import { EDGE_OPTIONS, edgeStubs } from '../../scripts/edge-stubs.mjs';
import type { BrowserHandle } from '../../src/browser/browser.js';
import { launchChrome } from '../../src/browser/launch.js';
import type { CdpSession } from '../../src/cdp/session.js';
import { Logger } from '../../src/logger.js';
import { deferred, withDeadline } from '../../src/util/time.js';
import { CHROME, TEST_ARGS } from '../helpers.js';

export const STEP_TIMEOUT_MS = 15_000;

/** Bundles `worker` as the service worker of a fresh unpacked extension; returns its folder. */
export async function buildTestExtension(worker: string, name: string, permissions: string[] = ['debugger', 'tabs']): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-test-extension-'));
  await build({
    entryPoints: [worker],
    bundle: true,
    format: 'iife',
    // As the edge bundle: no Node built-in may reach a service worker (the build fails naming it).
    ...EDGE_OPTIONS,
    plugins: [edgeStubs()],
    outfile: path.join(dir, 'worker.js'),
    logLevel: 'silent',
  });
  writeFileSync(
    path.join(dir, 'manifest.json'),
    JSON.stringify({ manifest_version: 3, name, version: '1.0', permissions, background: { service_worker: 'worker.js' } }),
  );
  return dir;
}

export interface ExtensionBrowser {
  browser: BrowserHandle;
  /** The extension's service worker, attached and with Runtime enabled. */
  worker: CdpSession;
  /** Calls `harness.<name>(...args)` in the worker; a `{ error }` answer throws. */
  call<T = Record<string, unknown>>(name: string, ...args: unknown[]): Promise<T>;
  /** Like `call`, but gives a `{ error }` answer back instead of throwing. */
  settle<T = Record<string, unknown>>(name: string, ...args: unknown[]): Promise<T | { error: { name: string; message: string } }>;
}

/**
 * Launches Chromium, loads the extension in `dir` and waits for its worker's script to say `ready`
 * on the console (evaluating code that rejects before the script ran crashed the worker once).
 */
export async function launchWithExtension(dir: string, ready: string, extraArgs: string[] = []): Promise<ExtensionBrowser> {
  const browser = await launchChrome(
    { executablePath: CHROME, args: [...TEST_ARGS, '--enable-unsafe-extension-debugging', '--disable-crash-reporter', '--disable-breakpad', ...extraArgs] },
    new Logger({ verbose: 0, disablePino: true }),
    STEP_TIMEOUT_MS,
  );
  try {
    const root = browser.connection.rootSession;
    const seen: Array<{ targetId: string; type: string; url: string }> = [];
    const found = deferred<string>();
    let prefix: string | undefined;
    const check = () => {
      const hit = prefix && seen.find((each) => each.type === 'service_worker' && each.url.startsWith(prefix!));
      if (hit) found.resolve(hit.targetId);
    };
    root.on('Target.targetCreated', ({ targetInfo }) => {
      seen.push(targetInfo);
      check();
    });
    await root.send('Target.setDiscoverTargets', { discover: true });
    prefix = `chrome-extension://${(await root.send('Extensions.loadUnpacked', { path: dir })).id}/`;
    check();
    const targetId = await withDeadline(found.promise, STEP_TIMEOUT_MS, "The extension's service worker target");
    const { sessionId } = await root.send('Target.attachToTarget', { targetId, flatten: true });
    const worker = browser.connection.session(sessionId)!;
    const announced = new Promise<void>((resolve) => {
      worker.on('Runtime.consoleAPICalled', (event) => {
        if (event.args[0]?.value === ready) resolve();
      });
    });
    await worker.send('Runtime.enable');
    const { result } = await worker.send('Runtime.evaluate', { expression: "typeof globalThis.harness === 'object'", returnByValue: true });
    if (result.value !== true) await withDeadline(announced, STEP_TIMEOUT_MS, "The extension's service worker script");
    const settle = async <T>(name: string, ...args: unknown[]): Promise<T> => {
      const { result, exceptionDetails } = await worker.send(
        'Runtime.evaluate',
        { expression: `globalThis.harness.${name}(...${JSON.stringify(args)})`, awaitPromise: true, returnByValue: true },
        { timeoutMs: STEP_TIMEOUT_MS },
      );
      if (exceptionDetails) throw new Error(`harness.${name} threw: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
      return result.value as T;
    };
    const call = async <T>(name: string, ...args: unknown[]): Promise<T> => {
      const value = await settle<T & { error?: unknown }>(name, ...args);
      if (value && typeof value === 'object' && 'error' in value && Object.keys(value).length === 1) {
        throw new Error(`harness.${name} failed: ${JSON.stringify(value.error)}`);
      }
      return value;
    };
    return { browser, worker, call, settle } as ExtensionBrowser;
  } catch (error) {
    await browser.close();
    throw error;
  }
}
