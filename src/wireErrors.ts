// Errors as the hosted protocol carries them. One table of the classes a server sends and a client
// raises again, by name, grouped by the protocol code each travels under: the server encodes with it,
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
  TracingStateError,
  UnknownKeyError,
  UnsupportedModelError,
  UnsupportedProviderError,
  UrlNotAllowedError,
  XPathResolutionError,
} from './errors.js';

export type WireError = ErrorBody['error'];

// Every constructor takes the message first; the fields after it are set again from the wire.
type ErrorClass = new (message: string, ...rest: never[]) => SdkError;

/**
 * The classes a server may send, by the protocol code each goes under. A class travels under its
 * errors' name (errors.ts writes each out), so the wire's names cannot disagree with the classes'.
 */
const BY_CODE: Array<[ErrorCode, ErrorClass[]]> = [
  ['schema_validation', [SchemaValidationError]],
  ['timeout', [TimeoutError]],
  ['model_error', [LLMResponseError]],
  [
    'conflict',
    [
      ActionFailedError,
      ElementNotFoundError,
      XPathResolutionError,
      ElementIdNotFoundError,
      ElementNotActionableError,
      ElementObscuredError,
    ],
  ],
  ['browser_gone', [ConnectionClosedError, PageClosedError, PageNotFoundError, ContextClosedError]],
  // A spent budget: spending more is not allowed; retrying as it is would be refused again.
  ['forbidden', [UrlNotAllowedError, DomainPolicyError, BudgetExceededError]],
  [
    'bad_request',
    [
      InvalidOptionError,
      UnknownKeyError,
      CookieValidationError,
      MissingLLMConfigurationError,
      UnsupportedModelError,
      UnsupportedProviderError,
      InvalidAISDKModelFormatError,
      NavigationError,
      PageStatusError,
      SelectorSyntaxError,
    ],
  ],
  [
    'internal',
    [
      SdkError,
      SdkDomProcessError,
      SdkEvalError,
      SdkIframeError,
      ContentFrameNotFoundError,
      SdkShadowRootMissingError,
      ProtocolError,
      BrowserLaunchError,
      BrowserConnectError,
      SdkStateError,
      TracingStateError,
      SdkClosedError,
      TargetClosedError,
      CookieSetError,
    ],
  ],
];

const KEPT = new Set(['name', 'message', 'stack', 'cause', '__proto__', 'constructor']);

const CODE_OF = new Map<Function, ErrorCode>(BY_CODE.flatMap(([code, types]) => types.map((type) => [type, code])));
/** The name a class's errors have; errors.ts sets it in the constructor, so an instance tells. */
const nameOf = (type: ErrorClass): string => new type('').name;
/** The table's classes by name, made when the first wire error is decoded. */
let classOf: Map<string, ErrorClass> | undefined;

/** The error's class if the table has it, else the nearest class above it that it has. */
function tableClass(error: SdkError): ErrorClass | undefined {
  for (let type: Function | null = error.constructor; type && type !== Error; type = Object.getPrototypeOf(type) as Function | null) {
    if (CODE_OF.has(type)) return type as ErrorClass;
  }
  return undefined;
}

/** The protocol code an error is sent under, and the class name the client raises it as. */
export function codeOf(error: unknown): { code: ErrorCode; name?: string } {
  if (error instanceof HostedServiceError) return { code: error.code as ErrorCode };
  const type = error instanceof SdkError ? tableClass(error) : undefined;
  return type ? { code: CODE_OF.get(type)!, name: nameOf(type) } : { code: 'internal', name: undefined };
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
  classOf ??= new Map(BY_CODE.flatMap(([, types]) => types.map((type) => [nameOf(type), type])));
  const type = wire.name ? classOf.get(wire.name) : undefined;
  if (!type) return undefined;
  const { issues, url, host, policy } = wire;
  const error = new type(wire.message);
  for (const [key, value] of Object.entries({ issues, url, host, policy, ...wire.fields })) {
    // Only the class's data: never what makes it an error (or its prototype, which `__proto__` would set).
    if (value !== undefined && !KEPT.has(key)) (error as unknown as Record<string, unknown>)[key] = value;
  }
  return error;
}
