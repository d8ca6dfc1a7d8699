// Stagehand 3's error classes, for code that catches them. Tendril throws its own errors (errors.ts);
// each Stagehand class that has a Tendril counterpart extends it and also answers `instanceof` for
// the counterpart's errors (Symbol.hasInstance), so `catch (e) { if (e instanceof
// StagehandElementNotFoundError) ... }` keeps working when Tendril throws ElementNotFoundError.
// Classes with no counterpart exist so that imports and `instanceof` checks compile and run;
// Tendril throws those only where its Stagehand class says so (stagehand.ts). The names Tendril
// shares with Stagehand (TimeoutError, LLMResponseError, XPathResolutionError, ...) are errors.ts's.

import {
  BrowserConnectError,
  BrowserLaunchError,
  ConnectionClosedError,
  ElementNotActionableError,
  ElementNotFoundError,
  ElementObscuredError,
  HostedServiceError,
  InvalidOptionError,
  LLMResponseError,
  SchemaValidationError,
  SdkDomProcessError,
  SdkError,
  SdkEvalError,
  SdkIframeError,
  SdkShadowRootMissingError,
  SdkStateError,
  TimeoutError,
  UnsupportedModelError,
} from '../errors.js';

/** What each class stands for beyond its own instances: the Tendril errors of the same meaning. */
const FAMILY = new Map<Function, (value: unknown) => boolean>();

function instanceOf(this: Function, value: unknown): boolean {
  return Function.prototype[Symbol.hasInstance].call(this, value) || FAMILY.get(this)?.(value) === true;
}

function standsFor(type: Function, test: (value: unknown) => boolean): void {
  FAMILY.set(type, test);
  Object.defineProperty(type, Symbol.hasInstance, { value: instanceOf });
}

const is =
  <T>(type: abstract new (...args: never[]) => T, also: (error: T) => boolean = () => true) =>
  (value: unknown): boolean =>
    value instanceof type && also(value);

/** Every error of Tendril's is a StagehandError too. */
export class StagehandError extends SdkError {
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

export class StagehandDefaultError extends StagehandError {
  constructor(error?: unknown) {
    super(`Unexpected error: ${error instanceof Error ? error.message : String(error)}`, error);
  }
}

export class StagehandEnvironmentError extends InvalidOptionError {
  constructor(currentEnvironment: string, requiredEnvironment: string, feature: string) {
    super(`${feature} needs env "${requiredEnvironment}"; this instance has env "${currentEnvironment}".`);
  }
}

export class MissingEnvironmentVariableError extends InvalidOptionError {
  constructor(missingEnvironmentVariable: string, feature: string) {
    super(`${feature} needs ${missingEnvironmentVariable}: set it in the environment.`);
  }
}

export class UnsupportedModelProviderError extends UnsupportedModelError {
  constructor(supportedProviders: string[], feature?: string) {
    super(`${feature ? `${feature}: ` : ''}unsupported model provider; use one of ${supportedProviders.join(', ')}.`);
  }
}

export class UnsupportedAISDKModelProviderError extends UnsupportedModelError {
  constructor(provider: string, supportedProviders: string[]) {
    super(`Model provider "${provider}" is not supported; use one of ${supportedProviders.join(', ')}.`);
  }
}

export class StagehandUnsupportedBrowserFeatureError extends StagehandError {
  constructor(feature: string, message: string, cause?: unknown) {
    super(`The browser does not support ${feature}: ${message}`, cause);
  }
}

export class StagehandNotInitializedError extends SdkStateError {
  constructor(prop: string) {
    super(`${prop} was used before init(): call \`await stagehand.init()\` first.`);
  }
}

export class HandlerNotInitializedError extends SdkStateError {
  constructor(handlerType: string) {
    super(`The ${handlerType} handler is not ready: call \`await stagehand.init()\` first.`);
  }
}

export class StagehandClosedError extends SdkStateError {
  constructor() {
    super('This instance is closed; create a new one.');
  }
}

export class BrowserbaseSessionNotFoundError extends StagehandError {
  constructor() {
    super('No Browserbase session id was found.');
  }
}

export class CaptchaTimeoutError extends StagehandError {
  constructor() {
    super('Waiting for a captcha to be solved timed out.');
  }
}

export class StagehandInvalidArgumentError extends InvalidOptionError {
  constructor(message: string) {
    super(`InvalidArgumentError: ${message}`);
  }
}

export class StagehandMissingArgumentError extends InvalidOptionError {
  constructor(message: string) {
    super(`MissingArgumentError: ${message}`);
  }
}

// CookieValidationError, CookieSetError and PageNotFoundError are Tendril's own (errors.ts): the
// context throws them under Stagehand's names.

export class StagehandElementNotFoundError extends ElementNotFoundError {
  constructor(xpaths: string[]) {
    super(`No element matches ${String(xpaths)}.`, String(xpaths));
  }
}

export class ElementNotVisibleError extends ElementNotActionableError {
  constructor(selector: string) {
    super(`The element ${selector} is not visible.`);
  }
}

export class AgentScreenshotProviderError extends StagehandError {
  constructor(message: string) {
    super(`ScreenshotProviderError: ${message}`);
  }
}

export class CreateChatCompletionResponseError extends LLMResponseError {}

export class StagehandEvalError extends SdkEvalError {}

export class StagehandDomProcessError extends SdkDomProcessError {}

export class StagehandLocatorError extends StagehandError {
  constructor(action: string, selector: string, message: string) {
    super(`${action} the element ${selector} failed: ${message}`);
  }
}

export class StagehandClickError extends StagehandError {
  constructor(message: string, selector: string) {
    super(`Clicking the element ${selector} failed: ${message}`);
  }
}

export class StagehandIframeError extends SdkIframeError {
  constructor(frameUrl: string, message: string) {
    super(`The iframe ${frameUrl}: ${message}`);
  }
}

export class ExperimentalApiConflictError extends StagehandError {
  constructor() {
    super('experimental: true cannot be combined with the Browserbase API.');
  }
}

export class ExperimentalNotConfiguredError extends StagehandError {
  constructor(featureName: string) {
    super(`${featureName} is experimental: pass experimental: true to use it.`);
  }
}

export class CuaModelRequiredError extends StagehandError {
  constructor(availableModels: readonly string[]) {
    super(`A computer-use model is required: one of ${availableModels.join(', ')}.`);
  }
}

/** Stagehand's is an Error, not a StagehandError; here it is Tendril's SchemaValidationError too. */
export class ZodSchemaValidationError extends SchemaValidationError {
  readonly received: unknown;
  constructor(received: unknown, issues: unknown) {
    super(`The value does not match the schema: ${JSON.stringify(issues)}`, Array.isArray(issues) ? issues : [issues]);
    this.received = received;
  }
}

export class StagehandInitError extends BrowserLaunchError {}

export class MCPConnectionError extends StagehandError {
  readonly serverUrl: string;
  readonly originalError: unknown;
  constructor(serverUrl: string, originalError: unknown) {
    super(`Could not connect to the MCP server ${serverUrl}: ${originalError instanceof Error ? originalError.message : String(originalError)}`, originalError);
    this.serverUrl = serverUrl;
    this.originalError = originalError;
  }
}

export class StagehandShadowRootMissingError extends SdkShadowRootMissingError {
  constructor(detail?: string) {
    super(`No shadow root is there${detail ? `: ${detail}` : '.'}`);
  }
}

export class StagehandShadowSegmentEmptyError extends StagehandError {
  constructor() {
    super('A shadow selector has an empty segment (a ">>" with nothing after it).');
  }
}

export class StagehandShadowSegmentNotFoundError extends StagehandError {
  constructor(segment: string, hint?: string) {
    super(`The shadow selector segment "${segment}" matches nothing${hint ? `: ${hint}` : '.'}`);
  }
}

export class ResponseBodyError extends StagehandError {}
export class ResponseParseError extends StagehandError {}

export class ActTimeoutError extends TimeoutError {
  constructor(timeoutMs: number) {
    super(`act() timed out after ${timeoutMs} ms.`, timeoutMs);
  }
}

export class ExtractTimeoutError extends TimeoutError {
  constructor(timeoutMs: number) {
    super(`extract() timed out after ${timeoutMs} ms.`, timeoutMs);
  }
}

export class ObserveTimeoutError extends TimeoutError {
  constructor(timeoutMs: number) {
    super(`observe() timed out after ${timeoutMs} ms.`, timeoutMs);
  }
}

export class ConnectionTimeoutError extends BrowserConnectError {}

export class StreamingCallbacksInNonStreamingModeError extends StagehandError {
  readonly invalidCallbacks: string[];
  constructor(invalidCallbacks: string[]) {
    super(`These callbacks need stream: true: ${String(invalidCallbacks)}.`);
    this.invalidCallbacks = invalidCallbacks;
  }
}

export class AgentAbortError extends StagehandError {
  readonly reason: string;
  constructor(reason = 'aborted') {
    super(`The agent was aborted: ${reason}`);
    this.reason = reason;
  }
}

export class CdpConnectionClosedError extends ConnectionClosedError {
  constructor(reason: string) {
    super(`The connection to the browser closed: ${reason}`);
  }
}

export class StagehandSetExtraHTTPHeadersError extends StagehandError {
  readonly failures: string[];
  constructor(failures: string[]) {
    super(`Setting extra HTTP headers failed: ${String(failures)}`);
    this.failures = failures;
  }
}

export class StagehandSetDomainPolicyError extends StagehandError {
  readonly failures: string[];
  constructor(failures: string[]) {
    super(`Setting the domain policy failed: ${String(failures)}`);
    this.failures = failures;
  }
}

export class StagehandSnapshotError extends StagehandError {
  constructor(cause?: unknown) {
    super(`Reading the page failed${cause instanceof Error ? `: ${cause.message}` : '.'}`, cause);
  }
}

export class UnderstudyCommandException extends StagehandError {}

/** Errors of Stagehand's hosted API; here, of a Tendril hosted service (env "HOSTED"). */
export class StagehandAPIError extends HostedServiceError {
  constructor(message: string, status = 0, code = 'internal') {
    super(message, status, code);
  }
}

export class StagehandAPIUnauthorizedError extends StagehandAPIError {
  constructor(message = 'The hosted service refused the API key.') {
    super(message, 401, 'unauthorized');
  }
}

export class StagehandHttpError extends StagehandAPIError {}
export class StagehandServerError extends StagehandAPIError {}

export class StagehandResponseBodyError extends StagehandAPIError {
  constructor() {
    super('The hosted service sent no response body.');
  }
}

export class StagehandResponseParseError extends StagehandAPIError {}

standsFor(StagehandError, is(SdkError));
standsFor(StagehandNotInitializedError, is(SdkStateError));
standsFor(StagehandClosedError, is(SdkStateError, (error) => /closed/i.test(error.message)));
standsFor(StagehandInvalidArgumentError, is(InvalidOptionError));
standsFor(UnsupportedAISDKModelProviderError, is(UnsupportedModelError, (error) => /provider/i.test(error.message)));
standsFor(StagehandElementNotFoundError, is(ElementNotFoundError));
standsFor(ElementNotVisibleError, is(ElementNotActionableError, (error) => !(error instanceof ElementObscuredError)));
standsFor(CreateChatCompletionResponseError, is(LLMResponseError));
standsFor(StagehandEvalError, is(SdkEvalError));
standsFor(StagehandDomProcessError, is(SdkDomProcessError));
standsFor(StagehandIframeError, is(SdkIframeError));
standsFor(ZodSchemaValidationError, is(SchemaValidationError));
standsFor(StagehandInitError, is(BrowserLaunchError));
standsFor(StagehandShadowRootMissingError, is(SdkShadowRootMissingError));
standsFor(ConnectionTimeoutError, is(BrowserConnectError));
standsFor(CdpConnectionClosedError, is(ConnectionClosedError));
standsFor(StagehandAPIError, is(HostedServiceError));
standsFor(StagehandAPIUnauthorizedError, is(HostedServiceError, (error) => error.status === 401 || error.status === 403));
standsFor(StagehandServerError, is(HostedServiceError, (error) => error.status >= 500));

// Names written out, as errors.ts does: a minifier renames classes, and `error.name` is read.
for (const [name, type] of Object.entries({
  StagehandError, StagehandDefaultError, StagehandEnvironmentError, MissingEnvironmentVariableError, UnsupportedModelProviderError, UnsupportedAISDKModelProviderError, StagehandUnsupportedBrowserFeatureError, StagehandNotInitializedError, HandlerNotInitializedError, StagehandClosedError, BrowserbaseSessionNotFoundError, CaptchaTimeoutError, StagehandInvalidArgumentError, StagehandMissingArgumentError, StagehandElementNotFoundError, ElementNotVisibleError, AgentScreenshotProviderError, CreateChatCompletionResponseError, StagehandEvalError, StagehandDomProcessError, StagehandLocatorError, StagehandClickError, StagehandIframeError, ExperimentalApiConflictError, ExperimentalNotConfiguredError, CuaModelRequiredError, ZodSchemaValidationError, StagehandInitError, MCPConnectionError, StagehandShadowRootMissingError, StagehandShadowSegmentEmptyError, StagehandShadowSegmentNotFoundError, ResponseBodyError, ResponseParseError, ActTimeoutError, ExtractTimeoutError, ObserveTimeoutError, ConnectionTimeoutError, StreamingCallbacksInNonStreamingModeError, AgentAbortError, CdpConnectionClosedError, StagehandSetExtraHTTPHeadersError, StagehandSetDomainPolicyError, StagehandSnapshotError, UnderstudyCommandException, StagehandAPIError, StagehandAPIUnauthorizedError, StagehandHttpError, StagehandServerError, StagehandResponseBodyError, StagehandResponseParseError,
})) {
  Object.defineProperty(type, 'name', { value: name });
}
