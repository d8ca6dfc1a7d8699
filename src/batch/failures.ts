// Failures sorted, not retried blindly. What another try can mend (a navigation timeout, a crashed
// tab, a lost browser, a server error, the model's service failing) is retried with backoff; what
// it cannot (a 404, a URL the policy refuses, a schema the model could not meet after its own
// retry, a bad job, a spent budget) fails at once, as BullMQ's UnrecoverableError.

import {
  ActionFailedError,
  BudgetExceededError,
  DomainPolicyError,
  InvalidAISDKModelFormatError,
  InvalidOptionError,
  MissingLLMConfigurationError,
  PageStatusError,
  SchemaValidationError,
  SelectorSyntaxError,
  UnsupportedModelError,
  UrlNotAllowedError,
} from '../errors.js';

const PERMANENT = [
  DomainPolicyError,
  UrlNotAllowedError,
  SchemaValidationError,
  InvalidOptionError,
  MissingLLMConfigurationError,
  UnsupportedModelError,
  InvalidAISDKModelFormatError,
  SelectorSyntaxError,
  ActionFailedError,
  BudgetExceededError,
];

/** Statuses another try may mend: the server is busy, down for a moment, or slow. */
const RETRIED_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

/** Whether another attempt could succeed where this one failed. */
export function isPermanent(error: unknown): boolean {
  if (error instanceof PageStatusError) return !RETRIED_STATUS.has(error.status);
  return PERMANENT.some((type) => error instanceof type);
}

/** What a failed job keeps of its error: the class's name and the message. */
export interface JobFailure {
  name: string;
  message: string;
}

/** BullMQ keeps a failure as one string, its failedReason: the class's name goes first. */
export function encodeFailure(error: unknown): string {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  return `${name}: ${message}`;
}

export function decodeFailure(reason: string | undefined): JobFailure {
  const match = /^([A-Za-z_$][\w$]*): ([\s\S]*)$/.exec(reason ?? '');
  return match ? { name: match[1]!, message: match[2]! } : { name: 'Error', message: reason || 'The job failed without a reason.' };
}
