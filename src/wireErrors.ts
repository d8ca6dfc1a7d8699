// Errors as the hosted protocol carries them. One table of the classes a server sends and a client
// raises again, by name, with the protocol code each travels under: the server encodes with it,
// the hosted client and the model-server client decode with it, so the sides cannot disagree.

import type { ErrorBody, ErrorCode } from '../protocol/index.js';
import {
  ActionFailedError,
  BudgetExceededError,
  BrowserConnectError,
  BrowserLaunchError,
  ConnectionClosedError,
  ContentFrameNotFoundError,
  CookieSetError,
  CookieValidationError,
  DomainPolicyError,
  ElementNotActionableError,
  ElementIdNotFoundError,
  ElementNotFoundError,
  ElementObscuredError,
  HostedServiceError,
  InvalidAISDKModelFormatError,
  InvalidOptionError,
  LLMResponseError,
  MissingLLMConfigurationError,
  NavigationError,
  PageClosedError,
  PageNotFoundError,
  PageStatusError,
  ContextClosedError,
  ProtocolError,
  SchemaValidationError,
  SdkDomProcessError,
  SdkError,
  SdkEvalError,
  SdkIframeError,
  SdkShadowRootMissingError,
  SdkStateError,
  SdkClosedError,
  SelectorSyntaxError,
  TargetClosedError,
  TimeoutError,
  UnknownKeyError,
  UnsupportedModelError,
  UnsupportedProviderError,
  UrlNotAllowedError,
  XPathResolutionError,
} from './errors.js';

export type WireError = ErrorBody['error'];

// Every constructor takes the message first; the fields after it are set again from the wire.
type ErrorClass = new (message: string, ...rest: never[]) => SdkError;

/** Each class a server may send, by its name, and the protocol code it goes under. */
const TABLE: Record<string, [ErrorClass, ErrorCode]> = {
  SchemaValidationError: [SchemaValidationError, 'schema_validation'],
  TimeoutError: [TimeoutError, 'timeout'],
  LLMResponseError: [LLMResponseError, 'model_error'],
  ActionFailedError: [ActionFailedError, 'conflict'],
  ElementNotFoundError: [ElementNotFoundError, 'conflict'],
  XPathResolutionError: [XPathResolutionError, 'conflict'],
  ElementIdNotFoundError: [ElementIdNotFoundError, 'conflict'],
  ElementNotActionableError: [ElementNotActionableError, 'conflict'],
  ElementObscuredError: [ElementObscuredError, 'conflict'],
  ConnectionClosedError: [ConnectionClosedError, 'browser_gone'],
  PageClosedError: [PageClosedError, 'browser_gone'],
  PageNotFoundError: [PageNotFoundError, 'browser_gone'],
  ContextClosedError: [ContextClosedError, 'browser_gone'],
  UrlNotAllowedError: [UrlNotAllowedError, 'forbidden'],
  DomainPolicyError: [DomainPolicyError, 'forbidden'],
  // Spending more is not allowed; retrying as it is would be refused again.
  BudgetExceededError: [BudgetExceededError, 'forbidden'],
  InvalidOptionError: [InvalidOptionError, 'bad_request'],
  UnknownKeyError: [UnknownKeyError, 'bad_request'],
  CookieValidationError: [CookieValidationError, 'bad_request'],
  MissingLLMConfigurationError: [MissingLLMConfigurationError, 'bad_request'],
  UnsupportedModelError: [UnsupportedModelError, 'bad_request'],
  UnsupportedProviderError: [UnsupportedProviderError, 'bad_request'],
  InvalidAISDKModelFormatError: [InvalidAISDKModelFormatError, 'bad_request'],
  NavigationError: [NavigationError, 'bad_request'],
  PageStatusError: [PageStatusError, 'bad_request'],
  SelectorSyntaxError: [SelectorSyntaxError, 'bad_request'],
  SdkError: [SdkError, 'internal'],
  SdkDomProcessError: [SdkDomProcessError, 'internal'],
  SdkEvalError: [SdkEvalError, 'internal'],
  SdkIframeError: [SdkIframeError, 'internal'],
  ContentFrameNotFoundError: [ContentFrameNotFoundError, 'internal'],
  SdkShadowRootMissingError: [SdkShadowRootMissingError, 'internal'],
  ProtocolError: [ProtocolError, 'internal'],
  BrowserLaunchError: [BrowserLaunchError, 'internal'],
  BrowserConnectError: [BrowserConnectError, 'internal'],
  SdkStateError: [SdkStateError, 'internal'],
  SdkClosedError: [SdkClosedError, 'internal'],
  TargetClosedError: [TargetClosedError, 'internal'],
  CookieSetError: [CookieSetError, 'internal'],
};

const KEPT = new Set(['name', 'message', 'stack', 'cause', '__proto__', 'constructor']);

const NAME_OF = new Map<Function, string>(Object.entries(TABLE).map(([name, [type]]) => [type, name]));

/** The table's name for the error's class, or for the nearest class above it that has one. */
function tableName(error: SdkError): string | undefined {
  for (let type: Function | null = error.constructor; type && type !== Error; type = Object.getPrototypeOf(type) as Function | null) {
    const name = NAME_OF.get(type);
    if (name) return name;
  }
  return undefined;
}

/** The protocol code an error is sent under, and the class name the client raises it as. */
export function codeOf(error: unknown): { code: ErrorCode; name?: string } {
  if (error instanceof HostedServiceError) return { code: error.code as ErrorCode };
  const name = error instanceof SdkError ? tableName(error) : undefined;
  return { code: name ? TABLE[name]![1] : 'internal', name };
}

/** The error as the wire carries it: code, message, class name and the class's own fields. */
export function toWire(error: unknown): WireError {
  const { code, name } = codeOf(error);
  const wire: WireError = { code, message: error instanceof Error ? error.message : String(error) };
  if (!name) return wire;
  wire.name = name;
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(error as object))
    if (key !== 'name' && key !== 'cause' && value !== undefined) fields[key] = value;
  if (Object.keys(fields).length > 0) wire.fields = fields;
  // Read by clients older than `fields`.
  if (error instanceof SchemaValidationError) wire.issues = error.issues;
  if (error instanceof NavigationError && error.url) wire.url = error.url;
  if (error instanceof DomainPolicyError) Object.assign(wire, { host: error.host, policy: error.policy });
  return wire;
}

/** The client's own error for a wire error whose class it knows; undefined for any other. */
export function fromWire(wire: WireError): SdkError | undefined {
  const entry = wire.name && Object.hasOwn(TABLE, wire.name) ? TABLE[wire.name] : undefined;
  if (!entry) return undefined;
  const { issues, url, host, policy } = wire;
  const error = new entry[0](wire.message);
  for (const [key, value] of Object.entries({ issues, url, host, policy, ...wire.fields })) {
    // Only the class's data: never what makes it an error (or its prototype, which `__proto__` would set).
    if (value !== undefined && !KEPT.has(key)) (error as unknown as Record<string, unknown>)[key] = value;
  }
  return error;
}
