// Which requests of a page are still in flight, so act() can wait for a page to finish loading what
// the previous action started. Tracked from the page's first act() or observe() on; the Network
// domain itself is on from the first goto() (for its response) or act(), not for pages only attached
// to and read.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';

/** Requests this old are long polls or streams: waiting for them would wait forever. */
const STALE_MS = 5000;

/** What the tracker needs of a page (page.ts's Page has it). */
export interface NetworkPage {
  readonly session: CdpSession;
  mainFrame(): { readonly id: string };
}

const trackers = new WeakMap<NetworkPage, NetworkTracker>();
const enabled = new WeakMap<CdpSession, Promise<void>>();

/**
 * How many bytes of response bodies Chrome keeps per page (total, and of one response). None here:
 * the driver reads statuses and counts requests. The main entry raises them for Stagehand's
 * `response.body()` (src/stagehand/response.ts).
 */
export const bodyBuffer = { maxTotalBufferSize: 0, maxResourceBufferSize: 0 };

/**
 * Turns on the Network domain of a page's session once, for whoever needs it first (goto for its
 * response, act for its requests). Never rejects: without it a page still works, only less is known
 * of its requests.
 */
export function enableNetwork(session: CdpSession): Promise<void> {
  let ready = enabled.get(session);
  if (!ready) {
    ready = session.send('Network.enable', bodyBuffer).then(
      () => undefined,
      () => undefined,
    );
    enabled.set(session, ready);
  }
  return ready;
}

export class NetworkTracker {
  readonly #inflight = new Map<string, number>();
  readonly #changed = new Set<() => void>();
  /** A request was seen, or an action performed, since tracking began or the page last went network-idle. */
  #touched = false;
  readonly ready: Promise<void>;

  private constructor(page: NetworkPage) {
    const session = page.session;
    session.on('Network.requestWillBeSent', (event: Protocol.Network.RequestWillBeSentEvent) => {
      if (event.type === 'WebSocket' || event.type === 'EventSource' || event.request.url.startsWith('data:')) return;
      this.#inflight.set(event.requestId, Date.now());
      this.#touched = true;
      this.#notify();
    });
    const done = (event: { requestId: string }) => {
      if (this.#inflight.delete(event.requestId)) this.#notify();
    };
    // Chrome says when the page's network went idle after a load (no connection for 500 ms): what
    // came before no longer counts. After that, a request or an action of ours touches it again.
    session.on('Page.lifecycleEvent', (event: Protocol.Page.LifecycleEventEvent) => {
      if (event.name === 'networkIdle' && event.frameId === page.mainFrame().id) this.#touched = false;
    });
    session.on('Network.loadingFinished', done);
    session.on('Network.loadingFailed', done);
    this.ready = enableNetwork(session);
  }

  static for(page: NetworkPage): NetworkTracker {
    let tracker = trackers.get(page);
    if (!tracker) trackers.set(page, (tracker = new NetworkTracker(page)));
    return tracker;
  }

  /** No request and no action of ours since tracking began or the page last went network-idle. */
  get untouched(): boolean {
    return !this.#touched;
  }

  /** An action is about to act on the page: what it starts must be waited for, even if no request shows. */
  noteAction(): void {
    this.#touched = true;
  }

  /** Requests in flight that are younger than STALE_MS. */
  busy(): number {
    const now = Date.now();
    let count = 0;
    for (const started of this.#inflight.values()) if (now - started < STALE_MS) count++;
    return count;
  }

  /** Resolves once no request has been in flight for `quietMs`, or after `maxMs`. */
  async idle(quietMs: number, maxMs: number): Promise<void> {
    await this.ready;
    const deadline = Date.now() + maxMs;
    await new Promise<void>((resolve) => {
      let quietTimer: ReturnType<typeof setTimeout> | undefined;
      const finish = () => {
        clearTimeout(quietTimer);
        clearTimeout(capTimer);
        this.#changed.delete(check);
        resolve();
      };
      const check = () => {
        clearTimeout(quietTimer);
        // A stale request stops counting by itself, without an event: look again when it does.
        quietTimer = setTimeout(() => (this.busy() === 0 ? finish() : check()), this.busy() === 0 ? quietMs : Math.min(quietMs, 250));
      };
      const capTimer = setTimeout(finish, Math.max(0, deadline - Date.now()));
      this.#changed.add(check);
      check();
    });
  }

  #notify(): void {
    for (const listener of this.#changed) listener();
  }
}
