// What every hosted-service exchange shares: headers, error bodies, the server-sent event stream.
// zod's `v4` entry exists in zod 3.25+ and zod 4 alike, so these schemas work under either peer.

// A namespace import: bundlers can then leave out the parts of zod never used (its locales above all).
import * as z from 'zod/v4';
import { OperationUsage } from './model.js';

export const PROTOCOL_VERSION = 1;

export { HEADERS } from './headers.js';

export const ErrorCode = z.enum([
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'rate_limited',
  'unavailable',
  'timeout',
  'browser_gone',
  'model_error',
  'schema_validation',
  'internal',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** The body of every error response, and the `error` event of a stream. */
export const ErrorBody = z.object({
  error: z.object({
    code: ErrorCode,
    message: z.string(),
    /** The client-side error class to raise (an SdkError name), when the cause maps to one. */
    name: z.string().optional(),
    /** Schema issues, for schema_validation. */
    issues: z.array(z.unknown()).optional(),
    /** The URL a navigation error is about. */
    url: z.string().optional(),
    /** For DomainPolicyError: the refused host and the policy that refused it. */
    host: z.string().optional(),
    policy: z.object({ allow: z.array(z.string()).optional(), block: z.array(z.string()).optional() }).optional(),
    /** The error class's own fields (a selector, a deadline, a key...), which the client sets again. */
    fields: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** HTTP status of each error code. */
export const STATUS_OF: Record<ErrorCode, number> = {
  bad_request: 400,
  schema_validation: 422,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
  timeout: 504,
  browser_gone: 410,
  model_error: 502,
  internal: 500,
};

export const LogEvent = z.object({
  type: z.literal('log'),
  level: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  category: z.string(),
  message: z.string(),
  timestamp: z.string(),
});

/**
 * Operations answer as server-sent events: any number of `log` events, then exactly one `result`
 * or `error`, after which the stream ends.
 */
export const StreamEvent = z.discriminatedUnion('type', [
  LogEvent,
  z.object({
    type: z.literal('result'),
    data: z.unknown(),
    cacheStatus: z.enum(['HIT', 'MISS']).optional(),
    /** extract, act and observe: the model use (a server older than this field sends none). */
    usage: OperationUsage.optional(),
  }),
  z.object({ type: z.literal('error'), error: ErrorBody.shape.error }),
]);
export type StreamEvent = z.infer<typeof StreamEvent>;
