import { BrowserConnectError, InvalidOptionError } from '../errors.js';
import { isNode } from '../util/env.js';
import { redactUrl } from '../util/redact.js';
import type { Transport } from './transport.js';

export interface WebSocketConnectOptions {
  headers?: Record<string, string>;
  timeoutMs: number;
}

// The slice of the WebSocket API that `ws` and the platform WebSocket share.
interface SocketLike {
  send(data: string): void;
  close(): void;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onopen: (() => void) | null;
}

/** DevTools messages (screenshots, snapshots of huge pages) can be far larger than ws's default cap. */
const MAX_MESSAGE_BYTES = 1024 * 1024 * 1024;

export class WebSocketTransport implements Transport {
  onmessage?: (message: string) => void;
  onclose?: (reason: string) => void;
  #closed = false;

  private constructor(private readonly socket: SocketLike) {
    socket.onmessage = (event) => {
      if (this.#closed) return;
      const data = event.data;
      this.onmessage?.(typeof data === 'string' ? data : new TextDecoder().decode(data as Uint8Array));
    };
    socket.onclose = (event) => this.#finish(`the WebSocket closed (code ${event.code}${event.reason ? `, ${event.reason}` : ''})`);
    socket.onerror = () => {
      // An error is always followed by close, which reports it.
    };
  }

  /** Opens a socket to `url`, using `ws` under Node and the platform's WebSocket elsewhere. */
  static async connect(url: string, options: WebSocketConnectOptions): Promise<WebSocketTransport> {
    const shownUrl = redactUrl(url);
    const headers = options.headers ?? {};
    let socket: SocketLike;
    if (isNode()) {
      const { default: WebSocket } = await import('ws');
      socket = new WebSocket(url, {
        headers,
        maxPayload: MAX_MESSAGE_BYTES,
        perMessageDeflate: false,
        handshakeTimeout: options.timeoutMs,
      }) as unknown as SocketLike;
    } else {
      const Platform = (globalThis as { WebSocket?: new (url: string) => SocketLike }).WebSocket;
      if (!Platform) throw new BrowserConnectError('This runtime has no WebSocket implementation.');
      if (Object.keys(headers).length > 0) {
        throw new InvalidOptionError(
          'cdpHeaders cannot be sent from this runtime: its WebSocket API does not allow upgrade headers. ' +
            'Put the credential in the URL (e.g. a signed token) or run under Node.',
        );
      }
      socket = new Platform(url);
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        // `ws` reports the abandoned handshake as an 'error' event after close(); with no listener
        // left, an EventEmitter throws it, and the program dies long after init() rejected.
        socket.onopen = socket.onclose = null;
        socket.onerror = () => undefined;
        try {
          socket.close();
        } catch {
          // Never opened.
        }
        reject(
          new BrowserConnectError(
            `Timed out after ${options.timeoutMs} ms connecting to ${shownUrl}. Is the browser running and reachable?`,
          ),
        );
      }, options.timeoutMs);
      socket.onopen = () => {
        clearTimeout(timer);
        resolve();
      };
      socket.onerror = (event) => {
        clearTimeout(timer);
        const detail = (event as { message?: string; error?: Error }).message ?? (event as { error?: Error }).error?.message;
        reject(
          new BrowserConnectError(
            `Could not connect to ${shownUrl}${detail ? `: ${detail}` : ''}. Check that the browser is running with a debugging port and that the URL and headers are right.`,
          ),
        );
      };
      socket.onclose = (event) => {
        clearTimeout(timer);
        reject(new BrowserConnectError(`The browser closed the WebSocket to ${shownUrl} during the handshake (code ${event.code}).`));
      };
      // Under Node, an upgrade answered with an HTTP status says why in its body (a relay with no
      // extension connected, a proxy asking for a token): that goes into the error.
      (socket as unknown as { once?: (event: string, listener: (...args: never[]) => void) => void }).once?.(
        'unexpected-response',
        (request: { destroy(): void }, response: RefusedResponse) => {
          clearTimeout(timer);
          void readRefusal(response).then((body) => {
            request.destroy();
            reject(
              new BrowserConnectError(`${shownUrl} refused the WebSocket upgrade: HTTP ${response.statusCode}${body ? `, ${body}` : ''}`),
            );
          });
        },
      );
    });
    socket.onopen = null;
    return new WebSocketTransport(socket);
  }

  send(message: string): void {
    if (!this.#closed) this.socket.send(message);
  }

  close(): void {
    if (this.#closed) return;
    try {
      this.socket.close();
    } catch {
      // Already closing.
    }
    this.#finish('the connection was closed by the client');
  }

  #finish(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.(reason);
  }
}

interface RefusedResponse {
  statusCode?: number;
  on(event: 'data', listener: (chunk: Uint8Array) => void): void;
  on(event: 'end' | 'error' | 'close', listener: () => void): void;
}

/** The start of a refused upgrade's body, as text, without waiting long for it. */
function readRefusal(response: RefusedResponse): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const done = () => {
      clearTimeout(timer);
      resolve(text.trim().slice(0, 300));
    };
    const timer = setTimeout(done, 1000);
    response.on('data', (chunk) => {
      if (text.length < 300) text += new TextDecoder().decode(chunk);
    });
    response.on('end', done);
    response.on('error', done);
    response.on('close', done);
  });
}
