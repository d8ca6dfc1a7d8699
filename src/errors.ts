// Every error the library throws lives here, so callers can import them from one place and
// `instanceof SdkError` catches all of ours. Each message names the cause and what to do about it.

export class SdkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = NAMES.get(new.target) ?? new.target.name;
  }
}

// ---- Contract errors -------------------------------------------------------------------------

/** The extracted data does not match the schema the caller gave. */
export class SchemaValidationError extends SdkError {
  constructor(
    message: string,
    readonly issues: unknown[] = [],
  ) {
    super(message);
  }
}

/** Processing the page's DOM failed (snapshot, node description, frame walk). */
export class SdkDomProcessError extends SdkError {}

/** JavaScript evaluated in the page threw, or its result could not be returned. */
export class SdkEvalError extends SdkError {}

/** An iframe on the selector's path has a content frame we could not reach (no session, no context). */
export class SdkIframeError extends SdkError {}

/** The selector passes through an element that has no content frame (not an iframe, or not loaded). */
export class ContentFrameNotFoundError extends SdkError {}

/** A selector (CSS or XPath) matched no element. */
export class ElementNotFoundError extends SdkError {
  constructor(
    message: string,
    readonly selector: string,
  ) {
    super(message);
  }
}

/** An XPath matched no element in the page or its frames. */
export class XPathResolutionError extends ElementNotFoundError {}

/** An element id (`[12]`, `[2-7]`) that no read of the page gave, or whose element is gone since. */
export class ElementIdNotFoundError extends ElementNotFoundError {}

/** A selector step asks for a shadow root that the resolved host element does not have. */
export class SdkShadowRootMissingError extends SdkError {}

/** The model's reply could not be used. */
export class LLMResponseError extends SdkError {}

/** A call needs a model, and neither the call nor the instance configures one with a key. */
export class MissingLLMConfigurationError extends SdkError {}

/** The model exists but cannot be used for this operation. */
export class UnsupportedModelError extends SdkError {}

/** A model names a provider Tendril does not know (`<provider>/<model>`). */
export class UnsupportedProviderError extends UnsupportedModelError {}

/** A model string is not of the form `<provider>/<model>`. */
export class InvalidAISDKModelFormatError extends SdkError {}

// ---- Errors of our own -----------------------------------------------------------------------

/** A selector is malformed (XPath or CSS syntax). */
export class SelectorSyntaxError extends SdkError {
  constructor(
    message: string,
    readonly selector: string,
  ) {
    super(message);
  }
}

/** An operation ran past its deadline. */
export class TimeoutError extends SdkError {
  constructor(
    message: string,
    readonly timeoutMs: number,
  ) {
    super(message);
  }
}

/** The connection to the browser is gone (browser exited, crashed, or the socket closed). */
export class ConnectionClosedError extends SdkError {}

/** The browser answered a DevTools Protocol command with an error. */
export class ProtocolError extends SdkError {
  constructor(
    message: string,
    readonly method: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

/** Chrome could not be found or started. */
export class BrowserLaunchError extends SdkError {}

/** An existing browser could not be reached through `cdpUrl`. */
export class BrowserConnectError extends SdkError {}

/** A navigation failed (network error, bad URL, aborted). */
export class NavigationError extends SdkError {
  constructor(
    message: string,
    readonly url: string,
  ) {
    super(message);
  }
}

/**
 * The page answered a navigation with an HTTP error status (`status`, 400 or more): the document
 * is the server's error page, not the page asked for. Batch jobs fail with it.
 */
export class PageStatusError extends NavigationError {
  constructor(
    message: string,
    url: string,
    readonly status: number,
  ) {
    super(message, url);
  }
}

/**
 * A hosted session may not load this URL: a scheme that is not of the web (file:, chrome:, ...), or
 * a host on a network the server keeps its sessions away from (loopback, private ranges).
 */
export class UrlNotAllowedError extends NavigationError {}

/**
 * What the CDP error of a command the hosted server's connectUrl bridge refused starts with, so a
 * client tells the server's refusal from Chrome's own errors.
 */
export const HOSTED_REFUSAL = 'Refused by the hosted server:';

/** A navigation or request went to a host outside the `domainPolicy`; `host` is that host. */
export class DomainPolicyError extends NavigationError {
  constructor(
    message: string,
    url: string,
    readonly host: string,
    /** The policy that refused it, as configured (normalised). */
    readonly policy: { allow?: string[]; block?: string[] },
  ) {
    super(message, url);
  }
}

/** The Sdk was used before `init()` finished, after `close()`, or with invalid options. */
export class SdkStateError extends SdkError {}

/** The Sdk (or its Stagehand class) was closed; create another, or init() the Stagehand again. */
export class SdkClosedError extends SdkStateError {}

/** `context.tracing` was started while it records, or stopped while it does not (docs/tracing.md). */
export class TracingStateError extends SdkStateError {}

/**
 * `context.tracing.stop({ path })` could not write the zip there. The trace is not lost: `bytes`
 * holds it, to write elsewhere (or call stop again with another path).
 */
export class TracingWriteError extends SdkError {
  constructor(
    message: string,
    /** The path that could not be written. */
    readonly path: string,
    /** The trace's zip, whole. */
    readonly bytes: Uint8Array,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** An option has a value the library cannot use. */
export class InvalidOptionError extends SdkError {}

/** `press` was given a key it does not know; `key` is the unknown part of the chord. */
export class UnknownKeyError extends InvalidOptionError {
  constructor(
    message: string,
    readonly key: string,
  ) {
    super(message);
  }
}

/** The page (or its tab) was closed or crashed while an operation was using it. */
export class PageClosedError extends SdkError {}

/** There is no page to give: every page of the context is closed (awaitActivePage). */
export class PageNotFoundError extends SdkError {}

/**
 * The browser context is closed (context.close(); in the MCP server, also one that ended after its
 * idle limit): its pages, cookies and storage are gone. Open another.
 */
export class ContextClosedError extends SdkError {}

/** A cookie given to addCookies, or a URL given to cookies(), cannot be used; the message says which and why. */
export class CookieValidationError extends InvalidOptionError {}

/** The browser refused cookies that passed our checks (addCookies); the message names them and what to check. */
export class CookieSetError extends SdkError {}

/** The target a command was sent to (a page, an iframe's process) detached or closed meanwhile. */
export class TargetClosedError extends SdkError {}

/** The element cannot take the action: not rendered, no size, disabled, or not the right kind. */
export class ElementNotActionableError extends SdkError {}

/**
 * Another element would receive the click: one covers the target (a cookie banner, a dialog) or
 * came under the pointer when it arrived. `receiver` names it, as `<div id="…" class="…"> "text…"`.
 */
export class ElementObscuredError extends ElementNotActionableError {
  constructor(
    message: string,
    readonly receiver: string,
  ) {
    super(message);
  }
}

/** act() could not perform the action, also after reading the page again once. */
export class ActionFailedError extends SdkError {
  constructor(
    message: string,
    /** The element it was aimed at (an XPath), when one was chosen. */
    readonly selector?: string,
  ) {
    super(message);
  }
}

/**
 * A model request was not sent: it would need more tokens than a budget has left (SdkOptions.budget,
 * a call's or an agent run's `budget`). `scope` names the budget: `call` (one operation's maxTokens),
 * `sdk` (the Sdk's totalTokens) or `account` (a TokenAccount, whose `remaining()` was `limit`).
 * `used`: spent (or, for an account, reserved by requests in flight) before this one; `needed`: this
 * request's estimated prompt plus its output cap.
 */
export class BudgetExceededError extends SdkError {
  declare readonly limit: number;
  declare readonly used: number;
  declare readonly needed: number;
  declare readonly scope: 'call' | 'sdk' | 'account';
}

/**
 * The hosted-browser service answered with an error (or, on the server, the error to answer with):
 * `status` is the HTTP status, `code` the protocol's error code (unauthorized, rate_limited, ...).
 */
export class HostedServiceError extends SdkError {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    /** Seconds to wait before trying again, from Retry-After (429, 503). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/**
 * Each error's name, written out rather than read from its class: minifiers rename classes (the
 * extension entry is built minified), and `error.name` is part of the API.
 */
const NAMES = new Map<Function, string>(
  Object.entries({
    SdkError,
    SchemaValidationError,
    SdkDomProcessError,
    SdkEvalError,
    SdkIframeError,
    ContentFrameNotFoundError,
    ElementNotFoundError,
    XPathResolutionError,
    ElementIdNotFoundError,
    SdkShadowRootMissingError,
    LLMResponseError,
    MissingLLMConfigurationError,
    UnsupportedModelError,
    UnsupportedProviderError,
    InvalidAISDKModelFormatError,
    SelectorSyntaxError,
    TimeoutError,
    ConnectionClosedError,
    ProtocolError,
    BrowserLaunchError,
    BrowserConnectError,
    NavigationError,
    PageStatusError,
    UrlNotAllowedError,
    DomainPolicyError,
    SdkStateError,
    SdkClosedError,
    TracingStateError,
    TracingWriteError,
    InvalidOptionError,
    UnknownKeyError,
    PageClosedError,
    PageNotFoundError,
    ContextClosedError,
    CookieValidationError,
    CookieSetError,
    TargetClosedError,
    ElementNotActionableError,
    ElementObscuredError,
    ActionFailedError,
    BudgetExceededError,
    HostedServiceError,
  }).map(([name, type]) => [type, name]),
);
