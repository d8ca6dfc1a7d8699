// The public types of the library, in one place.

import type { Page } from './driver/page.js';

export interface Viewport {
  width: number;
  height: number;
}

/**
 * How to get a local browser. The names follow Stagehand's, so switching over is a change of import.
 * With `cdpUrl` we attach to a running browser; without it we launch one.
 */
export interface LocalBrowserLaunchOptions {
  /** Chrome or Chromium binary. Default: `CHROME_PATH`, then the usual install locations. */
  executablePath?: string;
  /** Default `true`. */
  headless?: boolean;
  /** Extra command-line switches for Chrome. */
  args?: string[];
  /**
   * Profile directory. Default: a fresh temporary directory, removed on `close()`. A directory you
   * give is never removed.
   */
  userDataDir?: string;
  /** Keep the temporary profile after close (for debugging). Default `false`. */
  preserveUserDataDir?: boolean;
  /**
   * Run Chrome's sandbox. Default: on, except when running as root, where Chrome cannot start with it.
   */
  chromiumSandbox?: boolean;
  /** Size of every page's viewport (CSS pixels). Default: the window's, 1280x720 when we launch. */
  viewport?: Viewport;
  /**
   * Attach instead of launching: a `ws://` / `wss://` browser endpoint, an `http://host:port` debug
   * endpoint (resolved through `/json/version`), or the path of a `DevToolsActivePort` file (or of the
   * profile directory holding it).
   */
  cdpUrl?: string;
  /** Headers sent with the WebSocket upgrade (and the `/json/version` request) when attaching. */
  cdpHeaders?: Record<string, string>;
  /** Deadline for starting or reaching the browser. Default 30000 ms. */
  connectTimeoutMs?: number;
}

/** A log line, as given to the `logger` callback. Level 0 is an error, 1 information, 2 detail. */
export interface LogLine {
  category: string;
  message: string;
  level: 0 | 1 | 2;
  timestamp: string;
  auxiliary?: Record<string, unknown>;
}

/** `<provider>/<model>` or an object with the model name and optional key and endpoint. */
export type ModelConfiguration =
  | string
  | {
      modelName: string;
      apiKey?: string;
      baseURL?: string;
      [providerOption: string]: unknown;
    };

export interface SdkOptions {
  /** `LOCAL` (default): a browser on this machine. `HOSTED`: a remote browser service. */
  env?: 'LOCAL' | 'HOSTED';
  /** Hosted-browser account key (HOSTED only). Default: `HOSTED_API_KEY`. */
  apiKey?: string;
  /** Hosted-browser project (HOSTED only). Default: `HOSTED_PROJECT_ID`. */
  projectId?: string;
  localBrowserLaunchOptions?: LocalBrowserLaunchOptions;
  /** Default model for calls that need one. */
  model?: ModelConfiguration;
  /** 0: errors only, 1: information (default), 2: everything, including protocol traffic. */
  verbose?: 0 | 1 | 2;
  /** Turns off the built-in pino output (the `logger` callback still receives lines). */
  disablePino?: boolean;
  /** Receives every log line at or below the `verbose` level. */
  logger?: (line: LogLine) => void;
  /** Deadline of every single DevTools command. Default 30000 ms. */
  cdpTimeoutMs?: number;
  /** Server-side result cache for HOSTED; default `true`. */
  serverCache?: boolean;
  /** Session parameters for HOSTED. */
  hostedSessionCreateParams?: {
    projectId?: string;
    region?: string;
    browserSettings?: { blockAds?: boolean; viewport?: Viewport };
    keepAlive?: boolean;
    timeout?: number;
  };
}

/** When a navigation counts as done. */
export type WaitUntil = 'commit' | 'domcontentloaded' | 'load' | 'networkidle';

export interface GotoOptions {
  /** Default `load`: the page and every frame in it, out-of-process ones included, fired `load`. */
  waitUntil?: WaitUntil;
  /** Default 30000 ms. */
  timeoutMs?: number;
}

/** Options of `extract()`; every field is optional. */
export interface ExtractOptions {
  /** Model for this call (used by the instruction forms). */
  model?: ModelConfiguration;
  /** Deadline of the whole call in ms. Default: `cdpTimeoutMs` (30000). */
  timeout?: number;
  /** XPath or CSS: only that element's subtree, and the frames inside it, are read. */
  selector?: string;
  /** The page to read. Default: the active page (the one opened most recently). */
  page?: Page;
  /** HOSTED only: use the server-side cache for this call (default: the constructor's setting). */
  serverCache?: boolean;
}

/** What `extract()` and `extract(options)` return. */
export interface PageTextResult {
  /** The page as accessibility-tree text: one node per line, `[<frame>-<node>] role: name [state]`. */
  pageText: string;
}
