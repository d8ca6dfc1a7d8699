// What the side panel asks of the service worker, and what it gets back. Shared by both.

/** The model settings the panel saves; the worker reads them for each job. */
export interface ModelSettings {
  /** `<provider>/<model>`, for example `openai/gpt-4.1-mini`, or `openai-compatible/<model>` with baseURL. */
  modelName: string;
  apiKey?: string;
  baseURL?: string;
  /**
   * A hosted Tendril server that runs the model calls (SdkOptions.modelServer): for providers the
   * extension cannot load (all but OpenAI and OpenAI-compatible ones), or to keep the key there.
   */
  serverUrl?: string;
  /** One of that server's HOSTED_API_KEYS. */
  serverKey?: string;
}

/** Where the settings live: chrome.storage.local, on this machine only (never synced). */
export const SETTINGS_KEY = 'tendrilModel';

export type Job = { kind: 'text' } | { kind: 'extract'; instruction: string } | { kind: 'act'; instruction: string };

export type Outcome = { ok: true; url: string; text: string } | { ok: false; error: string };

/** The message the panel sends: `{ tendril: job }`, so other messages are left alone. */
export interface JobMessage {
  tendril: Job;
}

/** What the panel asks of the relay side: `{ tendrilRelay: request }`. */
export type RelayRequest =
  | { kind: 'status' }
  | { kind: 'connect'; url: string }
  | { kind: 'disconnect' }
  /** Shares `tabId`, or the active tab. */
  | { kind: 'share'; tabId?: number }
  | { kind: 'unshare'; tabId: number };

export interface RelayMessage {
  tendrilRelay: RelayRequest;
}

export interface SharedTab {
  id: number;
  title: string;
  url: string;
}

/** The relay side's state, as the panel shows it. */
export interface RelayView {
  connection: 'disconnected' | 'connecting' | 'connected';
  /** Whether a client drives the shared tabs now. */
  driven: boolean;
  shared: SharedTab[];
  /** The relay address saved last (it holds the extension's token: shown masked). */
  url?: string;
  /** The last problem, in words. */
  error?: string;
}

export type RelayAnswer = ({ ok: true } | { ok: false; error: string }) & { view: RelayView };

/**
 * Where the relay settings live: chrome.storage.local, this machine only. The address holds the
 * extension's token for the relay, a secret like the model key.
 */
export const RELAY_KEY = 'tendrilRelay';

export interface RelaySettings {
  url: string;
  /** Connected when last seen: a restarted service worker reconnects. */
  connected: boolean;
  /** The tabs shared then. */
  shared: number[];
}
