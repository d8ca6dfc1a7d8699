// The side panel: keeps the model settings in chrome.storage.local and sends jobs to the worker.
import { SETTINGS_KEY, type Job, type JobMessage, type ModelSettings, type Outcome } from './jobs.js';

declare const chrome: {
  storage: { local: { get(key: string): Promise<Record<string, unknown>>; set(items: Record<string, unknown>): Promise<void> } };
  runtime: { sendMessage(message: JobMessage): Promise<Outcome | undefined> };
};

const field = (id: string) => document.getElementById(id) as HTMLInputElement;
const out = document.getElementById('out') as HTMLPreElement;

async function load(): Promise<void> {
  const saved = (await chrome.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY] as ModelSettings | undefined;
  field('modelName').value = saved?.modelName ?? '';
  field('apiKey').value = saved?.apiKey ?? '';
  field('baseURL').value = saved?.baseURL ?? '';
}

async function save(): Promise<void> {
  const settings: ModelSettings = { modelName: field('modelName').value.trim() };
  const apiKey = field('apiKey').value.trim();
  const baseURL = field('baseURL').value.trim();
  if (apiKey) settings.apiKey = apiKey;
  if (baseURL) settings.baseURL = baseURL;
  await chrome.storage.local.set({ [SETTINGS_KEY]: settings });
  document.getElementById('saved')!.textContent = 'Saved.';
}

async function send(job: Job): Promise<void> {
  out.className = '';
  out.textContent = 'Working…';
  const outcome = await chrome.runtime.sendMessage({ tendril: job }).catch((error: Error) => ({ ok: false as const, error: error.message }));
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
void load();
