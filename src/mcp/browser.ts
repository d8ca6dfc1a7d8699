// The browser behind an MCP server: one Sdk for the whole process, started on the first tool call
// (a client lists the tools long before it uses any, and many never do). Each client's state lives
// in a browser context of it (session.ts).

import { SdkStateError } from '../errors.js';
import { Sdk } from '../sdk.js';
import type { SdkOptions } from '../types.js';

export class McpBrowser {
  #sdk: Sdk | undefined;
  #starting: Promise<Sdk> | undefined;
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
      this.#sdk = sdk;
      return sdk;
    })();
    return this.#starting;
  }

  /**
   * Lets a browser that went away (crashed, killed, its connection closed) go, so that the next
   * tool call starts another instead of failing like this one for the rest of the process. Every
   * client's context went with it; each gets a new one on its next call.
   */
  async forget(): Promise<void> {
    const sdk = this.#sdk;
    this.#sdk = undefined;
    this.#starting = undefined;
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
