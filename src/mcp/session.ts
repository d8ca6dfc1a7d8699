// One MCP client's browser state: a browser context (its cookies, storage, cache and tabs) and the
// tab its tools work on. An isolated session has a browser context of its own, made on its first
// tool call; the process's own (stdio, or --shared) uses the Sdk's context, the browser's default.

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Context } from '../driver/context.js';
import type { Page } from '../driver/page.js';
import { ContextClosedError, InvalidOptionError } from '../errors.js';
import type { Sdk } from '../sdk.js';
import type { SdkOptions } from '../types.js';
import type { McpBrowser } from './browser.js';

/** A trace of the session's context from its first tool call to its end (--trace-dir): where it goes. */
export interface SessionTrace {
  file: string;
  log: (line: string) => void;
}

export class BrowserSession {
  #context: Context | undefined;
  /** The Sdk #context belongs to: after a browser is forgotten, the next one needs a new context. */
  #of: Sdk | undefined;
  #opening: Promise<Context> | undefined;
  #current: Page | undefined;
  #closed = false;
  /** How this client's tabs answer dialogs (the dialogs tool); undefined: the library's default. */
  #dialogs: { accept: boolean; promptText?: string } | undefined;
  readonly #answering = new WeakSet<Page>();

  constructor(
    private readonly browser: McpBrowser,
    readonly isolated: boolean,
    /** Why a closed session is closed, for the error its next use meets. */
    private readonly closedReason = 'This context is closed.',
    private readonly trace?: SessionTrace,
  ) {}

  get options(): SdkOptions {
    return this.browser.options;
  }

  sdk(): Promise<Sdk> {
    return this.browser.sdk();
  }

  /** The session's browser context; the first call makes it. */
  async context(): Promise<Context> {
    if (this.#closed) throw new ContextClosedError(this.closedReason);
    const sdk = await this.browser.sdk();
    if (this.#context && this.#of === sdk) return this.#context;
    this.#opening ??= this.#open(sdk).finally(() => (this.#opening = undefined));
    return this.#opening;
  }

  async #open(sdk: Sdk): Promise<Context> {
    const context = this.isolated ? await sdk.newContext() : sdk.context;
    if (this.#closed) {
      if (this.isolated) await context.close();
      throw new ContextClosedError(this.closedReason);
    }
    // A tab the page opens (a popup, target=_blank) is where the agent's click led: follow it, as
    // the library's own default page does.
    if (this.trace) await context.tracing.start({ screenshots: true, snapshots: true, title: path.basename(this.trace.file, '.zip') });
    context.on('page', (page) => {
      this.#current = page;
      this.#answerDialogs(page);
    });
    this.#context = context;
    this.#of = sdk;
    this.#current = undefined;
    return context;
  }

  /**
   * From now on, every tab of this client answers JavaScript dialogs so: accepted (a prompt with
   * `promptText`) or dismissed. Without it the library's default holds.
   */
  async setDialogPolicy(policy: { accept: boolean; promptText?: string }): Promise<void> {
    this.#dialogs = policy;
    for (const page of (await this.context()).pages()) this.#answerDialogs(page);
  }

  #answerDialogs(page: Page): void {
    if (!this.#dialogs || this.#answering.has(page)) return;
    this.#answering.add(page);
    page.on('dialog', (dialog) => {
      const policy = this.#dialogs!;
      void (policy.accept ? dialog.accept(policy.promptText) : dialog.dismiss());
    });
  }

  /** The tab the tools work on: the one selected last, or else the most recently opened one. */
  async page(): Promise<Page> {
    const context = await this.context();
    if (this.#current && !this.#current.isClosed()) return this.#current;
    const active = context.activePage() ?? (await context.newPage());
    this.#current = active;
    return active;
  }

  async pages(): Promise<{ pages: Page[]; current: Page }> {
    const current = await this.page();
    return { pages: (await this.context()).pages(), current };
  }

  async select(index: number): Promise<Page> {
    const { pages } = await this.pages();
    const page = pages[index];
    if (!page)
      throw new InvalidOptionError(`There is no tab ${index}; the tabs are 0 to ${pages.length - 1} (see tabs with action "list").`);
    this.#current = page;
    return page;
  }

  async open(): Promise<Page> {
    const page = await (await this.context()).newPage();
    this.#current = page;
    return page;
  }

  /** Writes the session's trace (the server is stopping: the browser takes the context with it). */
  async saveTrace(): Promise<void> {
    if (this.#context && !this.#closed) await this.#saveTrace(this.#context);
  }

  async #saveTrace(context: Context): Promise<void> {
    const trace = this.trace;
    if (!trace) return;
    try {
      await mkdir(path.dirname(trace.file), { recursive: true });
      await context.tracing.stop({ path: trace.file });
      trace.log(`trace of a session: ${trace.file}`);
    } catch (error) {
      // Stopped by the client's own stop_tracing, or unwritable: the session's end goes on.
      trace.log(`trace of a session not written: ${(error as Error).message}`);
    }
  }

  /** How many tabs are open, without making the context. */
  tabCount(): number {
    return this.#context && !this.#closed ? this.#context.pages().length : 0;
  }

  /** See McpBrowser.forget(): the browser went away. */
  forget(): Promise<void> {
    return this.browser.forget();
  }

  /** Disposes an isolated session's context with its tabs, cookies and storage; its next use fails. Once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const context = this.#context ?? (await this.#opening?.catch(() => undefined));
    this.#context = undefined;
    this.#current = undefined;
    if (context) await this.#saveTrace(context);
    // A browser that went away took the context with it.
    if (this.isolated) await context?.close().catch(() => undefined);
  }
}
