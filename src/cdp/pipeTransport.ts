import type { Transport } from './transport.js';

// Node stream shapes, declared structurally so this file needs no Node types at run time.
interface Writable {
  write(chunk: string): boolean;
  end(): void;
  on(event: 'error', handler: (error: Error) => void): unknown;
}
interface Readable {
  on(event: 'data', handler: (chunk: Uint8Array) => void): unknown;
  on(event: 'end' | 'close', handler: () => void): unknown;
  on(event: 'error', handler: (error: Error) => void): unknown;
  destroy(): void;
}

/**
 * `--remote-debugging-pipe`: Chrome reads commands on fd 3 and writes replies on fd 4, each message
 * terminated by a NUL byte. No TCP port is opened, so no other local process can drive the browser,
 * and Chrome exits by itself when the pipe closes (our process died).
 */
export class PipeTransport implements Transport {
  onmessage?: (message: string) => void;
  onclose?: (reason: string) => void;
  #closed = false;
  // Messages can be tens of megabytes: keep the chunks of the partial message and join once.
  #pending: Uint8Array[] = [];
  readonly #decoder = new TextDecoder();

  constructor(
    private readonly toBrowser: Writable,
    private readonly fromBrowser: Readable,
  ) {
    fromBrowser.on('data', (chunk) => this.#onData(chunk));
    fromBrowser.on('end', () => this.#finish('the browser closed the debugging pipe'));
    fromBrowser.on('close', () => this.#finish('the browser closed the debugging pipe'));
    fromBrowser.on('error', (error) => this.#finish(`debugging pipe read failed: ${error.message}`));
    toBrowser.on('error', (error) => this.#finish(`debugging pipe write failed: ${error.message}`));
  }

  send(message: string): void {
    if (this.#closed) return;
    this.toBrowser.write(message + '\0');
  }

  close(): void {
    if (this.#closed) return;
    try {
      this.toBrowser.end();
    } catch {
      // Already broken; #finish reports it.
    }
    this.fromBrowser.destroy();
    this.#finish('the connection was closed by the client');
  }

  #onData(chunk: Uint8Array): void {
    let start = 0;
    let end = chunk.indexOf(0);
    while (end !== -1) {
      const piece = chunk.subarray(start, end);
      let text: string;
      if (this.#pending.length) {
        this.#pending.push(piece);
        text = this.#decoder.decode(concat(this.#pending));
        this.#pending = [];
      } else {
        text = this.#decoder.decode(piece);
      }
      if (!this.#closed) this.onmessage?.(text);
      start = end + 1;
      end = chunk.indexOf(0, start);
    }
    if (start < chunk.length) this.#pending.push(chunk.subarray(start));
  }

  #finish(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending = [];
    this.onclose?.(reason);
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
