// What the relay and the extension say to each other over the extension's WebSocket. CDP itself
// travels as the JSON text the client sent or Chrome produced, untouched, inside `cdp` envelopes.
// No Node built-ins: the extension side imports this too.

/** Relay → extension. */
export type RelayToExtension =
  /** A client connected: share the tabs with it (attach them) and relay its commands. */
  | { type: 'client'; client: number }
  | { type: 'cdp'; client: number; message: string }
  /** The client went away: detach from the tabs (they stay open). */
  | { type: 'client-gone'; client: number }
  /** Keeps the extension's service worker alive while it waits (Chrome stops idle workers). */
  | { type: 'ping' };

/** Extension → relay. */
export type ExtensionToRelay =
  | { type: 'cdp'; client: number; message: string }
  /** The extension ended the client's session (the user stopped sharing, or it failed); says why. */
  | { type: 'end'; client: number; reason: string }
  | { type: 'pong' };

/** The relay's path for the extension's WebSocket; its token comes as `?token=`. */
export const EXTENSION_PATH = '/extension';
/** The relay's path for CDP clients; `?token=` too, a query that logs redact. */
export const CLIENT_PATH = '/devtools/browser';
/** Close code the relay uses for a client whose extension went away or ended its session. */
export const CLOSE_ENDED = 4000;

export function parseEnvelope<T extends { type: string }>(text: string): T | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === 'object' && typeof (value as { type?: unknown }).type === 'string') return value as T;
  } catch {
    // Not JSON: ignored, as anything else malformed.
  }
  return undefined;
}
