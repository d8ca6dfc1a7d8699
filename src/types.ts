// The public types of the library that are not classes: options, results, events. The classes a
// caller holds (Context, Page, Frame, Locator, ...) live with their code in driver/; publicApi.ts
// exports their types.

import type { SdkBudget, TokenBudget } from './budgetTypes.js';
import type { StorageState } from './contextTypes.js';

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
  /**
   * Extra command-line switches for Chrome. Tendril adds
   * `--disable-blink-features=AutomationControlled` unless one of them names that feature or is
   * `--enable-automation`: those keep `navigator.webdriver` as you ask (see docs/browsers.md).
   */
  args?: string[];
  /**
   * Profile directory. Default: a fresh temporary directory, removed on `close()`. A directory you
   * give is never removed.
   */
  userDataDir?: string;
  /** Keep the temporary profile after close (for debugging). Default `false`. */
  preserveUserDataDir?: boolean;
  /** Run Chrome's sandbox. Default: on, except when running as root, where Chrome cannot start with it. */
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
  /** Launch only: Chrome's language (`--lang`, `--accept-lang`), which pages read in `navigator.language` and `Accept-Language`. */
  locale?: string;
  /**
   * Launch only: a proxy for every request (`--proxy-server`): `server` such as `http://host:3128` or
   * `socks5://host:1080`, `bypass` the hosts that go direct (`"localhost,*.internal"`). With
   * `username` and `password` (an http:// or https:// proxy), Chrome goes through a proxy on
   * loopback that adds them to every request (Proxy-Authorization), closed with the browser.
   */
  proxy?: { server: string; bypass?: string; username?: string; password?: string };
  /** Launch only: accept any TLS certificate (`--ignore-certificate-errors`), for test servers. */
  ignoreHTTPSErrors?: boolean;
  /** Launch only: device pixels per CSS pixel (`--force-device-scale-factor`), 2 for retina-sized screenshots. */
  deviceScaleFactor?: number;
  /** Launch only: pages see a touch screen (`--touch-events=enabled`). */
  hasTouch?: boolean;
  /** Launch only, with `headless: false`: open DevTools in every tab. */
  devtools?: boolean;
  /**
   * Launch only: also open a DevTools port on loopback (`--remote-debugging-port`), for another tool
   * to drive this browser. Tendril itself keeps the pipe; `connectURL()` is the guarded way in.
   */
  port?: number;
  /**
   * Launch only: leave out Tendril's default switches, all of them (`true`) or those listed. The
   * pipe, the profile and what the options above ask for stay.
   */
  ignoreDefaultArgs?: boolean | string[];
}

/** A log line, as given to the `logger` callback. Level 0 is an error, 1 information, 2 detail. */
export interface LogLine {
  category: string;
  message: string;
  level: 0 | 1 | 2;
  timestamp: string;
  auxiliary?: Record<string, unknown>;
}

/**
 * `<provider>/<model>` (for example `"openai/gpt-4.1-mini"`), or an object with the model name and
 * optional key and endpoint. Providers: openai (built in); anthropic, google, groq, mistral, xai,
 * deepseek (install `@ai-sdk/<provider>`); and servers that speak OpenAI's Chat Completions API:
 * ollama, vllm, llamacpp, lmstudio, openai-compatible (give `baseURL`).
 */
export type ModelConfiguration =
  | string
  | {
      /** `<provider>/<model>`, or a bare model name whose provider is plain (gpt-…, claude-…, gemini-…). */
      modelName: string;
      /** Default: the provider's usual environment variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...). */
      apiKey?: string;
      /** Another endpoint for the provider's API: a proxy, or a self-hosted server. */
      baseURL?: string;
      /**
       * Most tokens one model call may carry. Larger pages are extracted in chunks, never cut.
       * Default: the model's input window when we know it, 32000 otherwise, 8000 for local servers.
       */
      maxInputTokens?: number;
      /** Chunk calls that may run at once. Default 4. */
      maxParallelCalls?: number;
      /** Retries of a failed request (429, 5xx, network), within the call's deadline. Default 2. */
      maxRetries?: number;
      /** openai only: `"responses"` (default) or `"chat"` (Chat Completions). */
      api?: 'responses' | 'chat';
      /** Sampling temperature, 0 to 2. Default: the provider's. */
      temperature?: number;
      /** Per-call options for the provider, as the AI SDK takes them: `{ openai: { reasoningEffort: "low" } }`. */
      providerOptions?: Record<string, Record<string, unknown>>;
      /** Anything else goes to the provider's factory (headers, organization, ...). */
      [providerSetting: string]: unknown;
    };

/**
 * `LOCAL`: a browser on this machine. `HOSTED`: a remote browser service. `EXTENSION`: the tabs of
 * the browser a Chrome extension runs in, through chrome.debugger (`import { Sdk } from 'tendril/extension'`).
 */
export type SdkEnv = 'LOCAL' | 'HOSTED' | 'EXTENSION';

/** Which tabs an Sdk with env `EXTENSION` attaches to. */
export interface ExtensionOptions {
  /** Tab ids (chrome.tabs.Tab.id). Default: the active tab of the last focused window. */
  tabIds?: number[];
}

export interface SdkOptions {
  /** `LOCAL` (default; `EXTENSION` from `tendril/extension`), `HOSTED` or `EXTENSION`: see SdkEnv. */
  env?: SdkEnv;
  /** env `EXTENSION` only: which tabs to attach to. */
  extension?: ExtensionOptions;
  /** Hosted-browser account key (HOSTED only). Default: `HOSTED_API_KEY`. */
  apiKey?: string;
  /** Hosted-browser project (HOSTED only; optional: Tendril's own server has no projects and only echoes it). Default: `HOSTED_PROJECT_ID`. */
  projectId?: string;
  /** Base URL of the hosted-browser service (HOSTED only). Default: `HOSTED_API_URL`. */
  hostedApiUrl?: string;
  localBrowserLaunchOptions?: LocalBrowserLaunchOptions;
  /** Default model for calls that need one. */
  model?: ModelConfiguration;
  /**
   * Send model requests to a Tendril hosted server (its `POST /v1/model`) instead of straight to the
   * provider; the server runs them with its own providers, and, when no key is given here, its own
   * key. For an extension (which loads no provider package but OpenAI's), or to keep provider keys
   * off this machine. `apiKey` is one of the server's HOSTED_API_KEYS (default `HOSTED_API_KEY`).
   * Not with env `HOSTED`, whose models run on the server already.
   */
  modelServer?: { url: string; apiKey?: string };
  /** 0: errors only, 1: information (default), 2: everything, including protocol traffic. */
  verbose?: 0 | 1 | 2;
  /** Turns off the built-in pino output (the `logger` callback still receives lines). */
  disablePino?: boolean;
  /** Receives every log line at or below the `verbose` level. */
  logger?: (line: LogLine) => void;
  /** Deadline of every single DevTools command. Default 30000 ms. */
  cdpTimeoutMs?: number;
  /**
   * Folder for files the pages download; made if missing, and kept. Default: a temporary folder of
   * this Sdk, removed on `close()` (for a browser attached on another machine, that browser's own
   * choice). Each download is reported on `page.on('download')`. Not used with HOSTED.
   */
  downloadsPath?: string;
  /**
   * Hosts the pages may reach: navigations (goto, links, redirects, popups) and every request of
   * every frame. `example.org` is that host only; `*.example.org` is it and all its subdomains.
   * `block` wins over `allow`; without `allow`, every host not blocked is allowed. With HOSTED, the
   * server enforces it too (hostedSessionCreateParams.domainPolicy, unless given there).
   */
  domainPolicy?: DomainPolicy;
  /** Server-side result cache for HOSTED; default `true`. */
  serverCache?: boolean;
  /**
   * Instructions of your own, sent with every model request (extract, act, observe) after
   * Tendril's: the site's conventions, the language to answer in. Not with HOSTED.
   */
  systemPrompt?: string;
  /**
   * act(): when the chosen element cannot take the action, read the page again and ask the model
   * once more (an instruction), or ask it to find the element again (a replayed action). Default
   * `true`; `false` fails at once with ActionFailedError. Not with HOSTED, which always heals.
   */
  selfHeal?: boolean;
  /**
   * act() and observe() first let a busy page settle (the DOM and the network quiet): at most this
   * many ms. Default 1500; 0 reads the page as it is. Not with HOSTED.
   */
  domSettleTimeout?: number;
  /** Token limits (docs/budgets.md): maxTokens per operation, totalTokens for the Sdk, an account; not with HOSTED. */
  budget?: SdkBudget;
  /** Cookies and localStorage the Sdk's context starts with (docs/browsers.md): a StorageState, or the path of its JSON file (Node). */
  storageState?: StorageState | string;
  /** Session parameters for HOSTED. */
  hostedSessionCreateParams?: {
    projectId?: string;
    region?: string;
    browserSettings?: { blockAds?: boolean; viewport?: Viewport };
    keepAlive?: boolean;
    timeout?: number;
    domainPolicy?: DomainPolicy;
  };
}

/** Host patterns: `example.org` (that host), `*.example.org` (it and its subdomains), or an IP address. */
export interface DomainPolicy {
  allow?: string[];
  block?: string[];
}

/** When a navigation counts as done. */
export type WaitUntil = 'commit' | 'domcontentloaded' | 'load' | 'networkidle';

/** How goto(), goBack(), goForward() and reload() wait for the document they bring. */
export interface GotoOptions {
  /** Default `load`: the page and every frame in it, out-of-process ones included, fired `load`. */
  waitUntil?: WaitUntil;
  /** Default 30000 ms; 0 for no limit. */
  timeoutMs?: number;
}

/**
 * A page to work on: one of this Sdk's, or a Playwright or Puppeteer page connected to the same
 * browser through `sdk.connectURL()` (matched by its main frame). This Sdk's `Page` is one; the type
 * names only what all three share, so that the public types need none of the driver's classes.
 */
export interface AnyPage {
  mainFrame(): unknown;
}

/** Options of `extract()`; every field is optional. */
export interface ExtractOptions {
  /** Model for this call (used by the instruction forms). Default: the constructor's `model`. */
  model?: ModelConfiguration;
  /**
   * Deadline of the whole call in ms: reading the page and every model request (which is aborted
   * when it passes). Default: 120000 with an instruction, `cdpTimeoutMs` (30000) for page text.
   */
  timeout?: number;
  /** XPath or CSS: only that element's subtree, and the frames inside it, are read. */
  selector?: string;
  /** The page to read. Default: the active page (the one opened most recently). */
  page?: AnyPage;
  /** HOSTED only: use the server-side cache for this call (default: the constructor's setting). */
  serverCache?: boolean;
  /** Token limits of this call (its maxTokens overrides the Sdk's; its account is charged too): docs/budgets.md. */
  budget?: TokenBudget;
  /**
   * Page text only (`extract()` / `extract(options)`): which part of the page text to return. Ids
   * are those of the full text in every view, so an agent can act on them. An instruction extract
   * reads the whole page and takes no view but `'full'` (InvalidOptionError otherwise).
   * - `'full'` (default): the whole page text.
   * - `'viewport'`: the lines whose box shows in the viewport (in an iframe: in the part of it that
   *   shows), plus all of the open top dialog (modal `<dialog>`, `aria-modal="true"`, or a fixed
   *   dialog), each with the lines it sits under.
   * - `'interactive'`: only what one can act on (links, buttons, fields, options, elements with a
   *   click handler attribute, a tabindex or contenteditable), each followed by its context in
   *   parentheses: the text of its row or list item, else its group, form or dialog name, else the
   *   heading above it.
   * - `'delta'`: what changed since the last full page text this page gave (`extract()` or a
   *   delta; other calls do not count): `~` changed, `+` added, `-` removed lines, `=` ids that
   *   moved. The first read of a page, or one that changed too much, is the full text under a
   *   `# page text (...)` header. `applyDelta(previous, delta)` gives the new text.
   */
  view?: PageTextView;
}

/** The views of the page text; see ExtractOptions.view. */
export type PageTextView = 'full' | 'viewport' | 'interactive' | 'delta';

/** What `extract()` and `extract(options)` return. */
export interface PageTextResult {
  /** The page as accessibility-tree text: one node per line, `[<frame>-<node>] role: name [state]`. */
  pageText: string;
}

/** What `extract(instruction)` returns. */
export interface ExtractResult {
  extraction: string;
  /** HOSTED with the server cache on: whether the result came from the cache. Absent otherwise. */
  cacheStatus?: 'HIT' | 'MISS';
}

/**
 * A schema for `extract(instruction, schema)`: a zod 3 (3.25+) or zod 4 schema. Typed through the
 * Standard Schema interface both implement, so either version infers the result type.
 */
export interface ExtractSchema<Output = unknown> {
  readonly '~standard': { readonly vendor: string; readonly types?: { readonly output: Output } | undefined };
}

/** The type a schema parses to. */
export type InferSchema<T> = T extends { readonly '~standard': { readonly types?: { readonly output: infer O } | undefined } }
  ? O
  : unknown;

/** Model use of one public method (or of all of them, in `total`). */
export interface MethodMetrics {
  /** Calls of the method that asked a model. */
  operations: number;
  /** Requests sent to models (one per operation, one per chunk for pages sent in chunks). */
  modelCalls: number;
  /** Operations whose page did not fit one request and went in chunks. */
  chunkedOperations: number;
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  cachedInputTokens: number;
  /** Time spent waiting for models, summed over requests (parallel chunks each count). */
  inferenceTimeMs: number;
}

/** `sdk.metrics`: a copy of the counters since the Sdk was created. */
export interface SdkMetrics {
  total: MethodMetrics;
  extract: MethodMetrics;
  act: MethodMetrics;
  observe: MethodMetrics;
}

/** An action on one element, as observe() returns it and act() takes it. */
export interface ObserveResult {
  /** Absolute XPath, `xpath=/html/body/...`, through iframes and shadow roots. */
  selector: string;
  description: string;
  /** click, doubleClick, hover, fill, type, press, selectOption, scrollTo, scrollIntoView, nextChunk, prevChunk. */
  method: string;
  /** The method's arguments; `%name%` placeholders are filled from `variables` when performed. */
  arguments: string[];
}

/** What act() takes besides an instruction: an ObserveResult, or the same with method (click) and arguments left out. */
export type ActionInput = Pick<ObserveResult, 'selector'> & Partial<Omit<ObserveResult, 'selector'>>;

/**
 * An action on an element named by its id in the page text (`extract()`, any view): `"12"` or
 * `"[12]"` in the top document, `"2-7"` in frame 2. No model is asked. An id names its element
 * itself, for as long as that element is in its document, whatever reads came since; once it is
 * gone (removed, its document or frame replaced), act() fails with ElementIdNotFoundError, and the
 * page must be read again. A new document numbers its lines from the start again.
 */
export interface ElementAction {
  elementId: string;
  /** Default: click. */
  method?: string;
  arguments?: string[];
  description?: string;
}

export interface ActResult {
  success: boolean;
  message: string;
  actionDescription: string;
  /**
   * The action performed, replayable with act(action) and no model. When `success` is false because
   * another element would have taken the click, the action that was not done, to replay later.
   */
  actions: ObserveResult[];
}

export interface ActOptions {
  /** Default: the constructor's `model`. */
  model?: ModelConfiguration;
  /** Deadline of the whole call in ms, model requests included. Default 120000 (30000 to replay an action). */
  timeout?: number;
  /** Default: the active page. */
  page?: AnyPage;
  /** Values for `%name%` placeholders in the instruction's arguments; never sent to the model. */
  variables?: Record<string, string>;
  /** HOSTED only: use the server-side cache for this call (default: the constructor's setting). */
  serverCache?: boolean;
  /** Token limits of this call (its maxTokens overrides the Sdk's; its account is charged too): docs/budgets.md. */
  budget?: TokenBudget;
}

export interface ObserveOptions {
  model?: ModelConfiguration;
  timeout?: number;
  page?: AnyPage;
  /** Only this element's subtree is looked at. */
  selector?: string;
  /** HOSTED only: use the server-side cache for this call (default: the constructor's setting). */
  serverCache?: boolean;
  /** Token limits of this call (its maxTokens overrides the Sdk's; its account is charged too): docs/budgets.md. */
  budget?: TokenBudget;
}

// Token budgets (kept apart for size).
export type * from './budgetTypes.js';
// The cookie and policy shapes of the context's Stagehand 3 methods (kept apart for size).
export type * from './contextTypes.js';
// The options of page.screenshot() and frame.screenshot() (kept apart for size).
export type * from './screenshotTypes.js';
// The argument shapes of the locators' Stagehand 3 methods (kept apart for size).
export type * from './locatorTypes.js';
