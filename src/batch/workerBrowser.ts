// A worker's one browser: launched, or attached (any CDP endpoint: a hosted session, a Selenium
// Grid's se:cdp, browserless). When it is lost (crashed, or its connection closed), the jobs in
// hand fail and are retried, and the next job starts a new one.

import { Sdk } from '../sdk.js';
import type { SdkOptions } from '../types.js';

export class WorkerBrowser {
  #current: Promise<Sdk> | undefined;
  #closed = false;
  #sdk: Sdk | undefined;

  constructor(private readonly options: SdkOptions) {}

  /** The browser's Sdk, started on first use and after a loss. */
  get(): Promise<Sdk> {
    if (this.#closed) return Promise.reject(new Error('The worker is closing.'));
    this.#current ??= (async () => {
      const sdk = new Sdk(this.options);
      try {
        await sdk.init();
      } catch (error) {
        this.#current = undefined;
        throw error;
      }
      this.#sdk = sdk;
      return sdk;
    })();
    return this.#current;
  }

  /** `sdk`'s browser is gone: the next job gets a new one. */
  lost(sdk: Sdk): void {
    if (this.#sdk !== sdk) return;
    this.#sdk = undefined;
    this.#current = undefined;
    void sdk.close().catch(() => undefined);
  }

  /** Process id of a browser this worker launched (undefined when attached, or none yet). */
  processId(): number | undefined {
    return this.#sdk?.browserProcessId();
  }

  async close(): Promise<void> {
    this.#closed = true;
    const sdk = await this.#current?.catch(() => undefined);
    this.#current = undefined;
    await sdk?.close();
  }
}
