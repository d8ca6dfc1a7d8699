// Loading an unpacked extension into a browser we launched (over the pipe, with
// --enable-unsafe-extension-debugging) and calling `globalThis.harness` in its service worker.
import type { BrowserHandle } from '../../src/browser/browser.js';
import type { CdpSession } from '../../src/cdp/session.js';
import { deferred, withDeadline } from '../../src/util/time.js';

export interface LoadedExtension {
  id: string;
  worker: CdpSession;
  /** Calls `<global>.<name>(...args)` in the worker and returns its plain result; a lone `{ error }` throws. */
  call<T = Record<string, unknown>>(name: string, ...args: unknown[]): Promise<T>;
  /** The same, a failure returned as `{ error: { name, message } }`. */
  attempt<T = Record<string, unknown>>(name: string, ...args: unknown[]): Promise<T | { error: { name: string; message: string } }>;
}

/**
 * Loads the extension in `dir` with Extensions.loadUnpacked and attaches to its service worker, whose
 * script sets `globalThis[global]`. Nothing that may reject runs in the worker before its script has
 * (that crashed the extension's renderer): the first check is an expression that cannot throw, and
 * the script says on the console when it is done (`readyLine`).
 */
export async function loadExtension(
  browser: BrowserHandle,
  dir: string,
  { readyLine, timeoutMs, global = 'harness' }: { readyLine: string; timeoutMs: number; global?: string },
): Promise<LoadedExtension> {
  const root = browser.connection.rootSession;
  const seen: Array<{ targetId: string; type: string; url: string }> = [];
  const found = deferred<string>();
  let prefix: string | undefined;
  // The worker's target may appear before or after Extensions.loadUnpacked answers.
  const check = () => {
    const hit = prefix && seen.find((each) => each.type === 'service_worker' && each.url.startsWith(prefix!));
    if (hit) found.resolve(hit.targetId);
  };
  root.on('Target.targetCreated', ({ targetInfo }) => {
    seen.push(targetInfo);
    check();
  });
  await root.send('Target.setDiscoverTargets', { discover: true });
  const { id } = await root.send('Extensions.loadUnpacked', { path: dir });
  prefix = `chrome-extension://${id}/`;
  check();
  const targetId = await withDeadline(found.promise, timeoutMs, "The extension's service worker target");
  const { sessionId } = await root.send('Target.attachToTarget', { targetId, flatten: true });
  const worker = browser.connection.session(sessionId)!;
  const announced = new Promise<void>((resolve) => {
    worker.on('Runtime.consoleAPICalled', (event) => {
      if (event.args[0]?.value === readyLine) resolve();
    });
  });
  await worker.send('Runtime.enable');
  const { result } = await worker.send('Runtime.evaluate', { expression: `typeof globalThis.${global} === 'object'`, returnByValue: true });
  if (result.value !== true) await withDeadline(announced, timeoutMs, "The extension's service worker script");

  async function attempt<T>(name: string, ...args: unknown[]): Promise<T> {
    const { result, exceptionDetails } = await worker.send(
      'Runtime.evaluate',
      { expression: `globalThis.${global}.${name}(...${JSON.stringify(args)})`, awaitPromise: true, returnByValue: true },
      { timeoutMs },
    );
    if (exceptionDetails) throw new Error(`${global}.${name} threw: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value as T;
  }
  async function call<T>(name: string, ...args: unknown[]): Promise<T> {
    const value = (await attempt(name, ...args)) as T & { error?: unknown };
    if (value && typeof value === 'object' && 'error' in value && Object.keys(value).length === 1) {
      throw new Error(`${global}.${name} failed: ${JSON.stringify(value.error)}`);
    }
    return value;
  }
  return { id, worker, call, attempt };
}
