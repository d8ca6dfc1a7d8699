// The browser behind an MCP server: one Sdk for the whole process, started on the first tool call
// (a client lists the tools long before it uses any, and many never do), and the tab the tools
// work on.

import { InvalidOptionError, SdkStateError } from '../errors.js';
import type { Page } from '../driver/page.js';
import { Sdk } from '../sdk.js';
import type { SdkOptions } from '../types.js';

export class BrowserSession {
  #sdk: Sdk | undefined;
  #starting: Promise<Sdk> | undefined;
  #current: Page | undefined;
  #closed = false;

  constructor(readonly options: SdkOptions) {}

  /** The started Sdk; the first call starts it, and a failed start is tried again by the next call. */
  sdk(): Promise<Sdk> {
    if (this.#closed) return Promise.reject(new SdkStateError('The MCP server is shutting down.'));
    this.#starting ??= (async () => {
      const sdk = new Sdk(this.options);
      try {
        await sdk.init();
      } catch (error) {
        await sdk.close();
        this.#starting = undefined;
        throw error;
      }
      // A tab the page opens (a popup, target=_blank) is where the agent's click led: follow it,
      // as the library's own default page does.
      sdk.context.on('page', (page) => {
        this.#current = page;
      });
      this.#sdk = sdk;
      return sdk;
    })();
    return this.#starting;
  }

  /** The tab the tools work on: the one selected last, or else the most recently opened one. */
  async page(): Promise<Page> {
    const sdk = await this.sdk();
    if (this.#current && !this.#current.isClosed()) return this.#current;
    const active = sdk.context.activePage() ?? (await sdk.context.newPage());
    this.#current = active;
    return active;
  }

  async pages(): Promise<{ pages: Page[]; current: Page }> {
    const current = await this.page();
    return { pages: (await this.sdk()).context.pages(), current };
  }

  async select(index: number): Promise<Page> {
    const { pages } = await this.pages();
    const page = pages[index];
    if (!page) throw new InvalidOptionError(`There is no tab ${index}; the tabs are 0 to ${pages.length - 1} (see tabs with action "list").`);
    this.#current = page;
    return page;
  }

  async open(): Promise<Page> {
    const page = await (await this.sdk()).context.newPage();
    this.#current = page;
    return page;
  }

  /**
   * Lets a browser that went away (crashed, killed, its connection closed) go, so that the next
   * tool call starts another instead of failing like this one for the rest of the process.
   */
  async forget(): Promise<void> {
    const sdk = this.#sdk;
    this.#sdk = undefined;
    this.#starting = undefined;
    this.#current = undefined;
    await sdk?.close().catch(() => undefined);
  }

  /** Ends the browser (closes one we launched, detaches from one we attached to). Once. */
  async close(): Promise<void> {
    this.#closed = true;
    const starting = this.#starting;
    this.#starting = undefined;
    const sdk = this.#sdk ?? (await starting?.catch(() => undefined));
    this.#sdk = undefined;
    await sdk?.close();
  }
}
