// What goto() returns: the response that brought the main document, as Playwright and Puppeteer
// users know it, so a caller can tell a 404 or a 500 from a 200.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import type { Frame } from './frame.js';

export class NavigationResponse {
  /** @internal `event` and `source` serve the Stagehand entry's subclass (src/stagehand/response.ts): body, frame, finished. */
  constructor(
    /** @internal */ readonly response: Protocol.Network.Response,
    /** @internal */ readonly event?: Protocol.Network.ResponseReceivedEvent,
    /** @internal */ readonly source?: DocumentResponses,
  ) {}

  /** The URL of the response, after redirects. */
  url(): string {
    return this.response.url;
  }

  status(): number {
    return this.response.status;
  }

  statusText(): string {
    return this.response.statusText;
  }

  /** True for a status from 200 to 299 (and 0, a response from a file or from the cache without one). */
  ok(): boolean {
    const status = this.response.status;
    return status === 0 || (status >= 200 && status <= 299);
  }

  /** Response headers, names in lower case. */
  headers(): Record<string, string> {
    // Names in lower case, as HTTP/2 has them and Playwright hands them out.
    return Object.fromEntries(Object.entries(this.response.headers).map(([name, value]) => [name.toLowerCase(), String(value)]));
  }

  /** The server's IP address and port, when Chrome knows them (Playwright's and Stagehand's shape); else null. */
  async serverAddr(): Promise<{ ipAddress: string; port: number } | null> {
    const { remoteIPAddress: ipAddress, remotePort: port } = this.response;
    return ipAddress && port !== undefined ? { ipAddress, port } : null;
  }
}

/**
 * The last few document responses of a page's main session, by loader (a navigation's request id);
 * seen once the Network domain is on (enableNetwork).
 */
export class DocumentResponses {
  readonly #byLoader = new Map<string, Protocol.Network.ResponseReceivedEvent>();

  constructor(
    /** @internal */ readonly session: CdpSession,
    /** @internal The page; its responseClass, when it has one, is the class of what responseOf() gives (the Stagehand entry's). */
    readonly owner: { frames(): Frame[]; readonly responseClass?: typeof NavigationResponse },
  ) {
    session.on('Network.responseReceived', (event) => {
      // A data: URL fetches nothing, so goto() gives null for it as for about:blank (as Stagehand does).
      if (event.type !== 'Document' || !event.loaderId || event.requestId !== event.loaderId || event.response.url.startsWith('data:'))
        return;
      this.#byLoader.set(event.loaderId, event);
      // Only the latest navigations are ever asked for.
      if (this.#byLoader.size > 8) this.#byLoader.delete(this.#byLoader.keys().next().value!);
    });
  }

  responseOf(loaderId: string): NavigationResponse | null {
    const event = this.#byLoader.get(loaderId);
    return event ? new (this.owner.responseClass ?? NavigationResponse)(event.response, event, this) : null;
  }
}
