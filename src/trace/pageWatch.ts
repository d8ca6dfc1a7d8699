// What a trace records of one page besides the calls: its network as HAR entries (trace.network),
// console messages, page errors, dialogs and downloads (trace.trace events), and with
// `screenshots`, a screencast of a few frames a second (the viewer's filmstrip). Read from the
// page's DevTools sessions (its own and each out-of-process frame's), not from the driver's
// events, so that watching changes nothing the page does (a dialog listener would keep dialogs open).

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { enableNetwork } from '../driver/network.js';
import type { Page } from '../driver/page.js';
import { LIMITS, type TraceStore } from './store.js';
import { traceHeaders, traceUrl } from './redact.js';

/** Resource types whose bodies the snapshots need (they render the page from the trace alone); a document's source is not one (the snapshot is its DOM), and it may hold what the snapshot redacts. */
const KEPT_BODIES = new Set(['Stylesheet', 'Image', 'Font']);
const COMMAND_MS = 5_000;

interface Pending {
  request: Protocol.Network.Request;
  type?: string;
  frameId?: string;
  started: number;
  wallTime: number;
  response?: Protocol.Network.Response;
}

export class PageWatch {
  readonly pageId: string;
  readonly #offs: Array<() => void> = [];
  readonly #sessions = new Set<CdpSession>();
  readonly #requests = new Map<string, Pending>();
  readonly #work = new Set<Promise<unknown>>();
  #lastFrame = 0;

  constructor(
    readonly page: Page,
    private readonly store: TraceStore,
    private readonly now: () => number,
    private readonly options: { screenshots: boolean; snapshots: boolean },
  ) {
    this.pageId = `page@${page.targetId}`;
    this.store.write({ type: 'event', time: now(), class: 'BrowserContext', method: 'page', params: { pageId: this.pageId } });
    this.#offs.push(
      page.on('download', (download) =>
        this.#event('download', { url: traceUrl(download.url()), suggestedFilename: download.suggestedFilename() }),
      ),
    );
    this.#offs.push(page.on('close', () => this.#event('pageClosed', { pageId: this.pageId })));
    // An out-of-process frame's session is watched as the driver takes it in, before its target
    // runs: its own document and first requests are in the network list too.
    this.#offs.push(page.frameManager.onSessionAdopted((session) => this.#watch(session)));
    for (const session of page.frameManager.sessions()) this.#watch(session);
    if (options.screenshots) this.#screencast();
  }

  /** Follows a session of the page (its own, an out-of-process frame's): its network needs the Network domain, on once per session. */
  #watch(session: CdpSession): void {
    if (this.#sessions.has(session) || session.detached) return;
    this.#sessions.add(session);
    this.#offs.push(
      session.on('Network.requestWillBeSent', (event) => this.#request(event)),
      session.on('Network.responseReceived', (event) => {
        const pending = this.#requests.get(event.requestId);
        if (pending) pending.response = event.response;
      }),
      session.on('Network.loadingFinished', (event) => this.#track(this.#finished(session, event.requestId, event.encodedDataLength))),
      session.on('Network.loadingFailed', (event) => this.#track(this.#finished(session, event.requestId, 0, event.errorText))),
      session.on('Runtime.consoleAPICalled', (event) => this.#console(event)),
      session.on('Runtime.exceptionThrown', ({ exceptionDetails }) => {
        const message = exceptionDetails.exception?.description ?? exceptionDetails.text;
        const name = exceptionDetails.exception?.className ?? 'Error';
        this.#event('pageError', { error: { error: { name, message: message.split('\n')[0], stack: message } } });
      }),
      session.on('Page.javascriptDialogOpening', (event) =>
        this.#event('dialog', { pageId: this.pageId, type: event.type, message: event.message, defaultValue: event.defaultPrompt }),
      ),
    );
    void enableNetwork(session);
  }

  #event(method: string, params: object): void {
    this.store.write({ type: 'event', time: this.now(), class: 'BrowserContext', method, params, pageId: this.pageId });
  }

  #console(event: Protocol.Runtime.ConsoleAPICalledEvent): void {
    const text = event.args.map((arg) => (arg.value !== undefined ? String(arg.value) : (arg.description ?? arg.type))).join(' ');
    const top = event.stackTrace?.callFrames[0];
    this.store.write({
      type: 'console',
      time: this.now(),
      pageId: this.pageId,
      messageType: event.type === 'warning' ? 'warning' : event.type,
      text,
      location: { url: traceUrl(top?.url ?? ''), lineNumber: top?.lineNumber ?? 0, columnNumber: top?.columnNumber ?? 0 },
    });
  }

  #request(event: Protocol.Network.RequestWillBeSentEvent): void {
    // A redirect ends the request before it, as a HAR entry of its own.
    if (event.redirectResponse) {
      const earlier = this.#requests.get(event.requestId);
      if (earlier) {
        earlier.response = event.redirectResponse;
        this.#entry(earlier, event.redirectResponse.encodedDataLength ?? 0);
      }
    }
    this.#requests.set(event.requestId, {
      request: event.request,
      type: event.type,
      frameId: event.frameId,
      started: this.now(),
      wallTime: event.wallTime * 1000,
    });
  }

  async #finished(session: CdpSession, requestId: string, size: number, failure?: string): Promise<void> {
    const pending = this.#requests.get(requestId);
    if (!pending) return;
    this.#requests.delete(requestId);
    let file: string | undefined;
    if (!failure && this.options.snapshots && KEPT_BODIES.has(pending.type ?? '') && this.store.roomy && size <= LIMITS.bodyBytes) {
      const body = await session.send('Network.getResponseBody', { requestId }, { timeoutMs: COMMAND_MS }).catch(() => undefined);
      if (body) {
        const bytes = body.base64Encoded ? Uint8Array.from(atob(body.body), (c) => c.charCodeAt(0)) : new TextEncoder().encode(body.body);
        if (bytes.length <= LIMITS.bodyBytes) file = await this.store.resource(bytes, 'dat');
      }
    }
    this.#entry(pending, size, file, failure);
  }

  #entry(pending: Pending, size: number, file?: string, failure?: string): void {
    const { request, response } = pending;
    const url = traceUrl(request.url);
    const ended = this.now();
    this.store.writeNetwork({
      type: 'resource-snapshot',
      snapshot: {
        _frameref: pending.frameId,
        _monotonicTime: pending.started,
        pageref: this.pageId,
        startedDateTime: new Date(pending.wallTime).toISOString(),
        time: ended - pending.started,
        request: {
          method: request.method,
          url,
          httpVersion: response?.protocol ?? 'HTTP/1.1',
          cookies: [],
          headers: traceHeaders(request.headers),
          queryString: queryOf(url),
          headersSize: -1,
          bodySize: request.postData?.length ?? 0,
        },
        response: {
          status: response?.status ?? (failure ? 0 : -1),
          statusText: failure ?? response?.statusText ?? '',
          httpVersion: response?.protocol ?? 'HTTP/1.1',
          cookies: [],
          headers: traceHeaders(response?.headers),
          content: { size, mimeType: response?.mimeType ?? 'x-unknown', ...(file ? { _file: file } : {}) },
          redirectURL: '',
          headersSize: -1,
          bodySize: size,
          _transferSize: size,
          ...(failure ? { _failureText: failure } : {}),
        },
        cache: {},
        timings: { send: -1, wait: -1, receive: -1 },
        serverIPAddress: response?.remoteIPAddress,
        _resourceType: pending.type?.toLowerCase(),
      },
    });
  }

  #screencast(): void {
    const session = this.page.session;
    this.#offs.push(
      session.on('Page.screencastFrame', (event) => {
        void session.sendQuiet('Page.screencastFrameAck', { sessionId: event.sessionId });
        const time = this.now();
        if (time - this.#lastFrame < 1000 / LIMITS.framesPerSecond || !this.store.roomy) return;
        this.#lastFrame = time;
        const bytes = Uint8Array.from(atob(event.data), (c) => c.charCodeAt(0));
        this.#track(
          this.store.resource(bytes, 'jpeg').then((file) => {
            if (!file) return;
            const { deviceWidth: width, deviceHeight: height } = event.metadata;
            this.store.write({ type: 'screencast-frame', pageId: this.pageId, file, width, height, timestamp: time });
          }),
        );
      }),
    );
    this.#track(
      session
        .send('Page.startScreencast', { format: 'jpeg', quality: 60, maxWidth: 800, maxHeight: 600 }, { timeoutMs: COMMAND_MS })
        .catch(() => undefined),
    );
  }

  #track(work: Promise<unknown>): void {
    const tracked = work.catch(() => undefined).finally(() => this.#work.delete(tracked));
    this.#work.add(tracked);
  }

  /** Stops watching, once what was under way (bodies, frames) is in the store. */
  async stop(): Promise<void> {
    for (const off of this.#offs.splice(0)) off();
    if (this.options.screenshots && !this.page.isClosed()) {
      await this.page.session.send('Page.stopScreencast', undefined, { timeoutMs: COMMAND_MS }).catch(() => undefined);
    }
    await Promise.all(this.#work);
  }
}

function queryOf(url: string): Array<{ name: string; value: string }> {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}
