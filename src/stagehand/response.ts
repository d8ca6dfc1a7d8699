// Stagehand 3's Response, what a Stagehand's goto(), reload() and history moves resolve with:
// Tendril's NavigationResponse plus the headers as a list and by name, the body (bytes, text, JSON),
// the frame, TLS details and finished(), and headers() joining a repeated header's values as 3.7.3
// does. A subclass of the Stagehand entry (StagehandPage names it as its responseClass, page.ts), so
// tendril/extension carries none of it.

import type { Protocol } from 'devtools-protocol';
import type { Frame } from '../driver/frame.js';
import { bodyBuffer } from '../driver/network.js';
import { NavigationResponse } from '../driver/response.js';
import { ResponseBodyError, ResponseParseError } from './errors.js';

/** How long finished() waits for a document still loading before it says so. */
const FINISH_WAIT_MS = 30_000;

/** Chrome joins a repeated header's values with newlines. */
const valuesOf = (value: unknown): string[] =>
  String(value)
    .split(/\r?\n/)
    .map((part) => part.trim())
    .filter(Boolean);

// Chrome keeps the response bodies of the document a page shows in a buffer of this size, the oldest
// going first, and drops them when the page navigates: with Stagehand's Response, a document's body
// is there to read after goto().
Object.assign(bodyBuffer, { maxTotalBufferSize: 64 * 1024 * 1024, maxResourceBufferSize: 16 * 1024 * 1024 });

export class StagehandResponse extends NavigationResponse {
  /** The frame the document loaded into; null once that frame is gone. */
  frame(): Frame | null {
    const id = this.event?.frameId;
    return (id && this.source?.owner.frames().find((frame) => frame.id === id)) || null;
  }

  /** True when a service worker answered instead of the network. */
  fromServiceWorker(): boolean {
    return this.response.fromServiceWorker === true;
  }

  /** The TLS connection's details (https only), else null. */
  async securityDetails(): Promise<Protocol.Network.SecurityDetails | null> {
    return this.response.securityDetails ?? null;
  }

  /** Names in lower case, as Tendril's; a repeated header's values joined with ", ", as Stagehand's headers() joins them. */
  override headers(): Record<string, string> {
    return Object.fromEntries(Object.entries(super.headers()).map(([name, value]) => [name, valuesOf(value).join(', ')]));
  }

  /** The headers with their names as the server sent them. */
  async allHeaders(): Promise<Record<string, string>> {
    return Object.fromEntries(Object.entries(this.response.headers).map(([name, value]) => [name, String(value)]));
  }

  /** One header's values, each on its own (a repeated header, Set-Cookie, gives several). */
  async headerValues(name: string): Promise<string[]> {
    const wanted = String(name).toLowerCase();
    return Object.entries(this.response.headers).flatMap(([each, value]) => (each.toLowerCase() === wanted ? valuesOf(value) : []));
  }

  /** One header's values (a name in any case), joined with ", "; null when there is none. */
  async headerValue(name: string): Promise<string | null> {
    const values = await this.headerValues(name);
    return values.length ? values.join(', ') : null;
  }

  /** Every header as `{ name, value }`, a repeated header once per value. */
  async headersArray(): Promise<Array<{ name: string; value: string }>> {
    return Object.entries(this.response.headers).flatMap(([name, value]) => valuesOf(value).map((each) => ({ name, value: each })));
  }

  /** The document's bytes (a Buffer under Node); ResponseBodyError once Chrome let them go. */
  async body(): Promise<Uint8Array> {
    const { body, base64Encoded } = await fetchBody(this);
    const bytes = base64Encoded ? Uint8Array.from(atob(body), (char) => char.charCodeAt(0)) : new TextEncoder().encode(body);
    return typeof Buffer !== 'undefined' ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes;
  }

  /** The body as UTF-8 text. */
  async text(): Promise<string> {
    return new TextDecoder().decode(await this.body());
  }

  /** The body parsed as JSON; ResponseParseError when it is not JSON. */
  async json<T = unknown>(): Promise<T> {
    const text = await this.text();
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new ResponseParseError(
        `The body of ${this.url()} is not JSON (${error instanceof Error ? error.message : String(error)}); read it with text().`,
        error,
      );
    }
  }

  /** null once the document has loaded whole; an Error saying why when its load failed. */
  async finished(): Promise<Error | null> {
    const { event, source } = this;
    if (!event || !source) return null;
    const { requestId } = event;
    if (source.session.detached) return new Error(`The page of ${this.url()} closed before finished() was asked.`);
    // Chrome hands out a body once the whole of it arrived: then the load is over.
    const whole = () =>
      source.session.send('Network.getResponseBody', { requestId }).then(
        () => true,
        () => false,
      );
    // Listening before the first look, so that a load ending in between is not missed.
    const ended = await new Promise<string>((resolve) => {
      const done = (why: string) => {
        clearTimeout(timer);
        for (const stop of stops) stop();
        resolve(why);
      };
      const timer = setTimeout(() => done(`its body was not there after ${FINISH_WAIT_MS / 1000} s`), FINISH_WAIT_MS);
      const stops = [
        source.session.on('Network.loadingFinished', (finished) => finished.requestId === requestId && done('')),
        source.session.on(
          'Network.loadingFailed',
          (failed) => failed.requestId === requestId && done(failed.errorText || 'its load failed'),
        ),
        source.session.on('detached', () => done('the page closed first')),
      ];
      void whole().then((yes) => yes && done(''));
    });
    return ended ? new Error(`The document ${this.url()} did not load whole: ${ended}.`) : null;
  }
}

async function fetchBody(response: NavigationResponse): Promise<Protocol.Network.GetResponseBodyResponse> {
  const { event, source } = response;
  if (!event || !source)
    throw new ResponseBodyError(
      `The body of ${response.url()} is not kept: only a response goto(), reload(), goBack() or goForward() resolved with has one.`,
    );
  try {
    return await source.session.send('Network.getResponseBody', { requestId: event.requestId });
  } catch (error) {
    throw new ResponseBodyError(
      `Chrome no longer has the body of ${response.url()} (${error instanceof Error ? error.message : String(error)}): ` +
        'it keeps the bodies of the document a page shows (up to 64 MB), not of one it left or of a closed page; read it sooner.',
      error,
    );
  }
}
