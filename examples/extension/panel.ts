// The side panel: keeps the model settings in chrome.storage.local and sends jobs to the worker.
import {
  SETTINGS_KEY,
  type Job,
  type JobMessage,
  type ModelSettings,
  type Outcome,
  type RelayAnswer,
  type RelayMessage,
  type RelayRequest,
} from './jobs.js';

declare const chrome: {
  storage: { local: { get(key: string): Promise<Record<string, unknown>>; set(items: Record<string, unknown>): Promise<void> } };
  runtime: { sendMessage(message: JobMessage | RelayMessage): Promise<unknown> };
};

const field = (id: string) => document.getElementById(id) as HTMLInputElement;
const out = document.getElementById('out') as HTMLPreElement;

async function load(): Promise<void> {
  const saved = (await chrome.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] as ModelSettings | undefined;
  field('modelName').value = saved?.modelName ?? '';
  field('apiKey').value = saved?.apiKey ?? '';
  field('baseURL').value = saved?.baseURL ?? '';
  field('serverUrl').value = saved?.serverUrl ?? '';
  field('serverKey').value = saved?.serverKey ?? '';
}

async function save(): Promise<void> {
  const settings: ModelSettings = { modelName: field('modelName').value.trim() };
  const apiKey = field('apiKey').value.trim();
  const baseURL = field('baseURL').value.trim();
  if (apiKey) settings.apiKey = apiKey;
  if (baseURL) settings.baseURL = baseURL;
  const serverUrl = field('serverUrl').value.trim();
  const serverKey = field('serverKey').value.trim();
  if (serverUrl) settings.serverUrl = serverUrl;
  if (serverKey) settings.serverKey = serverKey;
  await chrome.storage.local.set({ [SETTINGS_KEY]: settings });
  document.getElementById('saved')!.textContent = 'Saved.';
}

async function send(job: Job): Promise<void> {
  out.className = '';
  out.textContent = 'Working…';
  const outcome = (await chrome.runtime
    .sendMessage({ tendril: job })
    .catch((error: Error) => ({ ok: false as const, error: error.message }))) as Outcome | undefined;
  if (!outcome) {
    out.textContent = 'The service worker did not answer.';
  } else if (outcome.ok) {
    out.textContent = `${outcome.url}\n\n${outcome.text}`;
  } else {
    out.className = 'error';
    out.textContent = outcome.error;
  }
}

function instruction(): string | undefined {
  const text = field('instruction').value.trim();
  if (!text) {
    out.className = 'error';
    out.textContent = 'Write an instruction first.';
  }
  return text || undefined;
}

document.getElementById('save')!.addEventListener('click', () => void save());
document.getElementById('text')!.addEventListener('click', () => void send({ kind: 'text' }));
document.getElementById('extract')!.addEventListener('click', () => {
  const text = instruction();
  if (text) void send({ kind: 'extract', instruction: text });
});
document.getElementById('act')!.addEventListener('click', () => {
  const text = instruction();
  if (text) void send({ kind: 'act', instruction: text });
});
/** Sends one relay request to the worker and shows the state it answers with. */
async function relay(request: RelayRequest): Promise<void> {
  const answer = (await chrome.runtime.sendMessage({ tendrilRelay: request }).catch(() => undefined)) as RelayAnswer | undefined;
  const state = document.getElementById('relayState')!;
  const list = document.getElementById('relayTabs')!;
  list.replaceChildren();
  if (!answer) {
    state.textContent = 'The service worker did not answer.';
    return;
  }
  const { view } = answer;
  const problem = answer.ok ? view.error : answer.error;
  state.className = answer.ok ? '' : 'error';
  state.textContent =
    `${view.connection}${view.driven ? ', a client is driving the shared tabs' : ''}${view.url ? ` (${view.url})` : ''}` +
    (problem ? `. ${problem}` : '');
  for (const tab of view.shared) {
    const item = document.createElement('li');
    const stop = document.createElement('button');
    stop.textContent = 'Stop sharing';
    stop.addEventListener('click', () => void relay({ kind: 'unshare', tabId: tab.id }));
    item.append(`${tab.title || tab.url} `, stop);
    list.append(item);
  }
}

document.getElementById('relayConnect')!.addEventListener('click', () => {
  const url = field('relayUrl').value.trim();
  if (url) void relay({ kind: 'connect', url });
});
document.getElementById('relayDisconnect')!.addEventListener('click', () => void relay({ kind: 'disconnect' }));
document.getElementById('relayShare')!.addEventListener('click', () => void relay({ kind: 'share' }));
void load();
void relay({ kind: 'status' });
