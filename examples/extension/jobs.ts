// What the side panel asks of the service worker, and what it gets back. Shared by both.

/** The model settings the panel saves; the worker reads them for each job. */
export interface ModelSettings {
  /** `<provider>/<model>`, for example `openai/gpt-4.1-mini`, or `openai-compatible/<model>` with baseURL. */
  modelName: string;
  apiKey?: string;
  baseURL?: string;
}

/** Where the settings live: chrome.storage.local, on this machine only (never synced). */
export const SETTINGS_KEY = 'tendrilModel';

export type Job = { kind: 'text' } | { kind: 'extract'; instruction: string } | { kind: 'act'; instruction: string };

export type Outcome = { ok: true; url: string; text: string } | { ok: false; error: string };

/** The message the panel sends: `{ tendril: job }`, so other messages are left alone. */
export interface JobMessage {
  tendril: Job;
}
