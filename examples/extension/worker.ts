// The extension's service worker: runs each job of the side panel with Tendril on the active tab.
// chrome.debugger lives here (and in extension pages); the panel only sends jobs and shows results.
import { Sdk, type ModelConfiguration } from 'tendril/extension';
import { SETTINGS_KEY, type Job, type JobMessage, type ModelSettings, type Outcome, type RelayMessage } from './jobs.js';
import { relay } from './relay.js';

declare const chrome: {
  storage: { local: { get(key: string): Promise<Record<string, unknown>> } };
  runtime: {
    onMessage: {
      addListener(listener: (message: unknown, sender: unknown, reply: (answer: unknown) => void) => boolean | undefined): void;
    };
  };
  sidePanel?: { setPanelBehavior(behavior: { openPanelOnActionClick: boolean }): Promise<void> };
};

async function modelSettings(): Promise<{ model?: ModelConfiguration; modelServer?: { url: string; apiKey: string } }> {
  const saved = (await chrome.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] as ModelSettings | undefined;
  if (!saved?.modelName) return {};
  const { modelName, apiKey, baseURL, serverUrl, serverKey } = saved;
  const model = { modelName, ...(apiKey ? { apiKey } : {}), ...(baseURL ? { baseURL } : {}) };
  return serverUrl ? { model, modelServer: { url: serverUrl, apiKey: serverKey ?? '' } } : { model };
}

/**
 * One job, one Sdk: it attaches to the active tab for the job only, so Chrome's "started debugging
 * this browser" bar shows only while Tendril works, and close() leaves the tab as it was.
 */
export async function run(job: Job): Promise<Outcome> {
  const sdk = new Sdk({ env: 'EXTENSION', ...(await modelSettings()) });
  try {
    await sdk.init();
    const page = sdk.context.pages()[0]!;
    const url = page.url();
    if (job.kind === 'text') return { ok: true, url, text: (await sdk.extract()).pageText };
    if (job.kind === 'extract') return { ok: true, url, text: (await sdk.extract(job.instruction)).extraction };
    const result = await sdk.act(job.instruction);
    return { ok: true, url, text: `${result.success ? 'Done' : 'Not done'}: ${result.message}` };
  } catch (error) {
    // The key is in the settings, never in what Tendril's errors say.
    return { ok: false, error: `${(error as Error).name}: ${(error as Error).message}` };
  } finally {
    await sdk.close();
  }
}

chrome.runtime.onMessage.addListener((message, _sender, reply) => {
  const job = (message as Partial<JobMessage> | undefined)?.tendril;
  const request = (message as Partial<RelayMessage> | undefined)?.tendrilRelay;
  if (job) void run(job).then(reply);
  else if (request) void relay(request).then(reply);
  else return undefined;
  // Keeps the channel open: the reply comes after this listener returns.
  return true;
});

// The toolbar button opens the side panel.
chrome.sidePanel?.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => undefined);

// For the service worker's DevTools console (and the example's tests): `await tendrilExample.run({ kind: 'text' })`,
// `await tendrilExample.relay({ kind: 'status' })`.
(globalThis as { tendrilExample?: { run: typeof run; relay: typeof relay } }).tendrilExample = { run, relay };
console.info('tendril example ready');
