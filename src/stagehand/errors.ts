// Stagehand 3's error classes, for code that catches them, in Tendril's one error tree (errors.ts).
// A Stagehand class that has a Tendril counterpart is that class under Stagehand's name: a
// constructor that takes Stagehand's arguments and makes the counterpart's instances (one
// prototype, `named` below), so `instanceof` holds both ways: `catch (e) { if (e instanceof
// StagehandElementNotFoundError) ... }` catches Tendril's ElementNotFoundError, and a
// StagehandElementNotFoundError is an ElementNotFoundError. The classes with no counterpart are
// subclasses, so that imports and `instanceof` checks compile and run; Tendril throws those only
// where its Stagehand class says so (stagehand.ts). The names Tendril shares with Stagehand
// (TimeoutError, LLMResponseError, XPathResolutionError, ...) are errors.ts's.

import {
  BrowserConnectError,
  BrowserLaunchError,
  ConnectionClosedError,
  ElementNotActionableError,
  ElementNotFoundError,
  HostedServiceError,
  InvalidOptionError,
  LLMResponseError,
  SchemaValidationError,
  SdkClosedError,
  SdkDomProcessError,
  SdkError,
  SdkEvalError,
  SdkIframeError,
  SdkShadowRootMissingError,
  SdkStateError,
  TimeoutError,
  UnsupportedModelError,
  UnsupportedProviderError,
} from '../errors.js';

/** A Stagehand name for a Tendril class: `new` with Stagehand's arguments gives the Tendril class's instance. */
export interface StagehandClass<A extends unknown[], I> {
  new (...args: A): I;
  readonly prototype: I;
}

/**
 * Stagehand's `name` for Tendril's `base`: `args` turns Stagehand's constructor arguments into the
 * base's; `extra` sets the fields Stagehand's class has beyond the base's. The constructor shares
 * the base's prototype, which is what makes `instanceof` hold both ways; the instance's `name` is
 * Stagehand's (SdkError names an instance after the constructor `new` was called on).
 */
function named<B extends abstract new (...args: never[]) => SdkError>(name: string, base: B) {
  return <A extends unknown[], E extends object = object>(
    args: (...given: A) => ConstructorParameters<B>,
    extra?: (...given: A) => E,
  ): StagehandClass<A, InstanceType<B> & E> => {
    const type = function (this: unknown, ...given: A): unknown {
      if (!new.target) throw new TypeError(`Class constructor ${name} cannot be invoked without 'new'`);
      const error = Reflect.construct(base, args(...given), new.target) as object;
      return extra ? Object.assign(error, extra(...given)) : error;
    };
    Object.defineProperty(type, 'prototype', { value: base.prototype, writable: false });
    Object.defineProperty(type, 'name', { value: name });
    return type as unknown as StagehandClass<A, InstanceType<B> & E>;
  };
}

/** Every error of Tendril's is a StagehandError, and every StagehandError is an SdkError. */
export const StagehandError = named(
  'StagehandError',
  SdkError,
)((message: string, cause?: unknown) => [message, cause === undefined ? undefined : { cause }]);
export type StagehandError = SdkError;

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

export const UnsupportedAISDKModelProviderError = named(
  'UnsupportedAISDKModelProviderError',
  UnsupportedProviderError,
)((provider: string, supportedProviders: string[]) => [
  `Model provider "${provider}" is not supported; use one of ${supportedProviders.join(', ')}.`,
]);
export type UnsupportedAISDKModelProviderError = UnsupportedProviderError;

export class StagehandUnsupportedBrowserFeatureError extends StagehandError {
  constructor(feature: string, message: string, cause?: unknown) {
    super(`The browser does not support ${feature}: ${message}`, cause);
  }
}

export const StagehandNotInitializedError = named(
  'StagehandNotInitializedError',
  SdkStateError,
)((prop: string) => [`${prop} was used before init(): call \`await stagehand.init()\` first.`]);
export type StagehandNotInitializedError = SdkStateError;

export class HandlerNotInitializedError extends SdkStateError {
  constructor(handlerType: string) {
    super(`The ${handlerType} handler is not ready: call \`await stagehand.init()\` first.`);
  }
}

export const StagehandClosedError = named('StagehandClosedError', SdkClosedError)(() => ['This instance is closed; create a new one.']);
export type StagehandClosedError = SdkClosedError;

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

export const StagehandInvalidArgumentError = named(
  'StagehandInvalidArgumentError',
  InvalidOptionError,
)((message: string) => [`InvalidArgumentError: ${message}`]);
export type StagehandInvalidArgumentError = InvalidOptionError;

export class StagehandMissingArgumentError extends InvalidOptionError {
  constructor(message: string) {
    super(`MissingArgumentError: ${message}`);
  }
}

// CookieValidationError, CookieSetError and PageNotFoundError are Tendril's own (errors.ts): the
// context throws them under Stagehand's names.

export const StagehandElementNotFoundError = named(
  'StagehandElementNotFoundError',
  ElementNotFoundError,
)((xpaths: string[]) => [`Could not find an element for the given xPath(s): ${String(xpaths)}`, String(xpaths)]);
export type StagehandElementNotFoundError = ElementNotFoundError;

/** Stagehand's own: Tendril throws ElementNotActionableError (or its ElementObscuredError) for an element it cannot act on. */
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

export const CreateChatCompletionResponseError = named(
  'CreateChatCompletionResponseError',
  LLMResponseError,
)((message: string) => [message]);
export type CreateChatCompletionResponseError = LLMResponseError;

export const StagehandEvalError = named('StagehandEvalError', SdkEvalError)((message: string) => [message]);
export type StagehandEvalError = SdkEvalError;

export const StagehandDomProcessError = named('StagehandDomProcessError', SdkDomProcessError)((message: string) => [message]);
export type StagehandDomProcessError = SdkDomProcessError;

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

export const StagehandIframeError = named(
  'StagehandIframeError',
  SdkIframeError,
)((frameUrl: string, message: string) => [`The iframe ${frameUrl}: ${message}`]);
export type StagehandIframeError = SdkIframeError;

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

/** Stagehand's is an Error, not a StagehandError; here it is Tendril's SchemaValidationError, with what was received. */
export const ZodSchemaValidationError = named('ZodSchemaValidationError', SchemaValidationError)(
  (_received: unknown, issues: unknown) => [
    `The value does not match the schema: ${JSON.stringify(issues)}`,
    Array.isArray(issues) ? issues : [issues],
  ],
  (received: unknown) => ({ received }),
);
export type ZodSchemaValidationError = SchemaValidationError & { received?: unknown };

export const StagehandInitError = named('StagehandInitError', BrowserLaunchError)((message: string) => [message]);
export type StagehandInitError = BrowserLaunchError;

export class MCPConnectionError extends StagehandError {
  readonly serverUrl: string;
  readonly originalError: unknown;
  constructor(serverUrl: string, originalError: unknown) {
    super(
      `Could not connect to the MCP server ${serverUrl}: ${originalError instanceof Error ? originalError.message : String(originalError)}`,
      originalError,
    );
    this.serverUrl = serverUrl;
    this.originalError = originalError;
  }
}

export const StagehandShadowRootMissingError = named(
  'StagehandShadowRootMissingError',
  SdkShadowRootMissingError,
)((detail?: string) => [`No shadow root is there${detail ? `: ${detail}` : '.'}`]);
export type StagehandShadowRootMissingError = SdkShadowRootMissingError;

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

export const ConnectionTimeoutError = named('ConnectionTimeoutError', BrowserConnectError)((message: string) => [message]);
export type ConnectionTimeoutError = BrowserConnectError;

// The agent's own errors, under the names Stagehand gives them.
export { AgentAbortError, StreamingCallbacksInNonStreamingModeError } from '../agent/errors.js';

export const CdpConnectionClosedError = named(
  'CdpConnectionClosedError',
  ConnectionClosedError,
)((reason: string) => [`The connection to the browser closed: ${reason}`]);
export type CdpConnectionClosedError = ConnectionClosedError;

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
export const StagehandAPIError = named(
  'StagehandAPIError',
  HostedServiceError,
)((message: string, status: number = 0, code: string = 'internal') => [message, status, code]);
export type StagehandAPIError = HostedServiceError;

// Tendril raises a HostedServiceError whatever the status, so these two are Stagehand's own: read
// `status` (401, 403; 500 and above) to tell them apart.
export class StagehandAPIUnauthorizedError extends StagehandAPIError {
  constructor(message = 'The hosted service refused the API key.') {
    super(message, 401, 'unauthorized');
  }
}

export class StagehandHttpError extends StagehandAPIError {}

export class StagehandServerError extends StagehandAPIError {
  constructor(message: string, status = 500, code = 'internal') {
    super(message, status, code);
  }
}

export class StagehandResponseBodyError extends StagehandAPIError {
  constructor() {
    super('The hosted service sent no response body.');
  }
}

export class StagehandResponseParseError extends StagehandAPIError {}

// Names written out, as errors.ts does: a minifier renames classes, and `error.name` is read. (The
// Stagehand names of Tendril's classes have theirs from `named`.)
for (const [name, type] of Object.entries({
  StagehandDefaultError,
  StagehandEnvironmentError,
  MissingEnvironmentVariableError,
  UnsupportedModelProviderError,
  StagehandUnsupportedBrowserFeatureError,
  HandlerNotInitializedError,
  BrowserbaseSessionNotFoundError,
  CaptchaTimeoutError,
  StagehandMissingArgumentError,
  ElementNotVisibleError,
  AgentScreenshotProviderError,
  StagehandLocatorError,
  StagehandClickError,
  ExperimentalApiConflictError,
  ExperimentalNotConfiguredError,
  CuaModelRequiredError,
  MCPConnectionError,
  StagehandShadowSegmentEmptyError,
  StagehandShadowSegmentNotFoundError,
  ResponseBodyError,
  ResponseParseError,
  StagehandAPIUnauthorizedError,
  StagehandServerError,
  ActTimeoutError,
  ExtractTimeoutError,
  ObserveTimeoutError,
  StagehandSetExtraHTTPHeadersError,
  StagehandSetDomainPolicyError,
  StagehandSnapshotError,
  UnderstudyCommandException,
  StagehandHttpError,
  StagehandResponseBodyError,
  StagehandResponseParseError,
})) {
  Object.defineProperty(type, 'name', { value: name });
}
