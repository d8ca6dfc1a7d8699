// Header names, apart from the schemas: a client that only sends requests (an extension's model
// requests, see model.ts) needs them without loading zod.

/** Header names, lower-case as HTTP/2 and fetch() give them. */
export const HEADERS = {
  /** The hosted-service account key on every REST call. */
  apiKey: 'x-hosted-api-key',
  /** The model provider's key for extract/act/observe; used for the call, never stored or logged. */
  modelApiKey: 'x-model-api-key',
  /** `bypass` skips the server's result cache for this call (serverCache: false). */
  cacheControl: 'x-hosted-cache',
  /** `HIT` or `MISS` on a cached operation's response (absent when the cache was bypassed). */
  cacheStatus: 'x-hosted-cache-status',
  /**
   * On POST /v1/sessions: the most milliseconds the client waits for the answer. A server busy
   * starting browsers answers 503 with Retry-After before then rather than keep it waiting in vain.
   */
  maxWait: 'x-hosted-max-wait-ms',
  /**
   * On an operation, from a load balancer: open the event stream at once and write a comment every
   * this many milliseconds until the answer, so that an instance that says nothing for longer is
   * known to be stopped, not busy (the cache status then travels in the result event only).
   */
  heartbeatMs: 'x-hosted-heartbeat-ms',
  /**
   * On an operation, from a load balancer that may send it again to another instance: the session's
   * instance runs each id once, so a copy that a stopped instance passes on when it wakes is refused.
   */
  requestId: 'x-hosted-request-id',
} as const;
