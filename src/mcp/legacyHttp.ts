// 2025-era clients over Streamable HTTP: each gets an MCP session (Mcp-Session-Id), served by the
// SDK's sessionful transport, so that its browser context can follow it from request to request.
// The SDK's own handler serves that era statelessly (every request alone); http.ts routes the
// era's requests here instead, as the SDK's docs describe (isLegacyRequest in front of a strict
// handler). Revision 2026-07-28 has no sessions: its requests go to the SDK's handler.

import { randomUUID } from 'node:crypto';
import {
  isInitializeRequest,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpServerFactory,
} from '@modelcontextprotocol/server';

/** Told when a session begins and ends, so that its browser context does (contexts.ts). */
export interface SessionHooks {
  started(id: string, principal: string): void;
  ended(id: string): Promise<void>;
}

export class LegacySessions {
  readonly #transports = new Map<string, WebStandardStreamableHTTPServerTransport>();

  constructor(
    private readonly factory: McpServerFactory,
    private readonly hooks: SessionHooks,
    private readonly options: { maxRequestBodySize: number; onError: (error: Error) => void },
  ) {}

  async handle(request: Request, authInfo: AuthInfo): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const transport = this.#transports.get(id);
      // As the transport would answer a session it does not know: the client starts a new one.
      if (!transport)
        return rpcError(
          404,
          -32001,
          'Session not found: it was ended (DELETE), or ended after its browser context went unused too long. Initialize a new session.',
        );
      return transport.handleRequest(request, { authInfo });
    }
    const body: unknown =
      request.method === 'POST'
        ? await request
            .clone()
            .json()
            .catch(() => undefined)
        : undefined;
    if (!isInitializeRequest(body)) {
      return rpcError(
        400,
        -32000,
        'Bad Request: send initialize first, then the Mcp-Session-Id header its answer gave with every request.',
      );
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: this.options.maxRequestBodySize,
      onsessioninitialized: (sessionId) => {
        this.#transports.set(sessionId, transport);
        this.hooks.started(sessionId, authInfo.clientId);
      },
      // Awaited by the transport: the DELETE is answered once the context is gone.
      onsessionclosed: (sessionId) => this.#forget(sessionId),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) void this.#forget(transport.sessionId);
    };
    transport.onerror = this.options.onError;
    const server = await this.factory({ era: 'legacy', authInfo, requestInfo: request });
    await server.connect(transport);
    return transport.handleRequest(request, { authInfo });
  }

  /** Lets a session go: its next request is answered 404, and the client starts another. */
  async end(id: string): Promise<void> {
    const transport = this.#transports.get(id);
    await this.#forget(id);
    await transport?.close().catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#transports.keys()].map((id) => this.end(id)));
  }

  async #forget(id: string): Promise<void> {
    if (!this.#transports.delete(id)) return;
    await this.hooks.ended(id).catch((error: Error) => this.options.onError(error));
  }
}

function rpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}
