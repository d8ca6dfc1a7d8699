// Which browser context a tool call works in. Each MCP client gets its own (cookies, storage, cache,
// tabs and current tab), so that agents driving one server at once never see each other's pages:
// - a `context` argument: the context the `context` tool opened under that handle (revision
//   2026-07-28 has no sessions: state travels in an explicit handle, as the spec advises);
// - else a 2025-era client over HTTP: the context of its MCP session (Mcp-Session-Id);
// - else, over HTTP: the default context of the caller's principal (the token's holder);
// - else (stdio, where the process is the client): the browser's default context.
// With `shared`, every call works in the browser's default context, as before there were contexts.
// An isolated context ends when closed, or after `idleMs` without a tool call in it.

import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { ContextClosedError } from '../errors.js';
import type { McpBrowser } from './browser.js';
import { BrowserSession, type SessionTrace } from './session.js';

export interface ContextSettings {
  /** One browser context for every client (`--shared`). */
  shared: boolean;
  /** Whether clients come over HTTP (the principal's default) or stdio (the process's). */
  http: boolean;
  /** How long an isolated context may go without a tool call before it ends; 0: never. */
  idleMs: number;
  log: (line: string) => void;
  /** Each session's context traced from its first tool call to its end, a zip per session here (--trace-dir). */
  traceDir?: string;
}

/** Who calls: the principal (over HTTP, who the token is for), and its 2025-era MCP session if any. */
export interface Caller {
  principal: string;
  mcpSession?: string;
}

/** A context the `context` tool opened, as `list` shows it. */
export interface ContextInfo {
  context: string;
  tabs: number;
  idleSeconds: number;
}

type Kind = 'handle' | 'session' | 'principal';

interface Entry {
  kind: Kind;
  id: string;
  principal: string;
  session: BrowserSession;
  busy: number;
  lastUsed: number;
  timer?: ReturnType<typeof setTimeout>;
}

export class ClientContexts {
  readonly #own: BrowserSession;
  readonly #entries = new Map<string, Entry>();
  /** Told when an MCP session's context ended on the idle limit: the HTTP server lets that session go. */
  onSessionExpired: ((id: string) => void) | undefined;

  constructor(
    private readonly browser: McpBrowser,
    readonly settings: ContextSettings,
  ) {
    this.#own = new BrowserSession(browser, false, undefined, this.#traceOf('own', 'process'));
  }

  /** The session a tool call works in, and what to call when the call is over (the idle clock starts again). */
  enter(handle: string | undefined, caller: Caller): { session: BrowserSession; leave: () => void } {
    const entry = this.#entryFor(handle, caller);
    if (!entry) return { session: this.#own, leave: () => undefined };
    entry.busy++;
    clearTimeout(entry.timer);
    return {
      session: entry.session,
      leave: () => {
        entry.busy--;
        entry.lastUsed = Date.now();
        if (entry.busy === 0) this.#arm(entry);
      },
    };
  }

  #entryFor(handle: string | undefined, caller: Caller): Entry | undefined {
    if (this.settings.shared) return undefined;
    if (handle !== undefined) {
      const entry = this.#entries.get(`handle:${handle}`);
      // Another principal's handle is answered as one that does not exist.
      if (entry && entry.principal === caller.principal) return entry;
      throw new ContextClosedError(
        `There is no open context ${JSON.stringify(handle)}: ${this.#endedText()}. ` +
          'Open another with the context tool (action "open"), or leave out `context` to work in your own.',
      );
    }
    if (caller.mcpSession !== undefined)
      return this.#entries.get(`session:${caller.mcpSession}`) ?? this.#add('session', caller.mcpSession, caller.principal);
    if (!this.settings.http) return undefined;
    return this.#entries.get(`principal:${caller.principal}`) ?? this.#add('principal', caller.principal, caller.principal);
  }

  /** Opens a context for the `context` tool; resolves with its handle once the browser has made it. */
  async open(caller: Caller): Promise<string> {
    const handle = randomUUID();
    const entry = this.#add('handle', handle, caller.principal);
    try {
      await entry.session.context();
    } catch (error) {
      await this.#end(entry);
      throw error;
    }
    return handle;
  }

  /** Closes a context the `context` tool opened: its tabs, cookies and storage are gone. */
  async close(handle: string, caller: Caller): Promise<void> {
    const entry = this.#entryFor(handle, caller)!;
    await this.#end(entry);
  }

  /** The contexts the caller's principal opened with the `context` tool. */
  list(caller: Caller): ContextInfo[] {
    const now = Date.now();
    return [...this.#entries.values()]
      .filter((entry) => entry.kind === 'handle' && entry.principal === caller.principal)
      .map((entry) => ({
        context: entry.id,
        tabs: entry.session.tabCount(),
        idleSeconds: entry.busy ? 0 : Math.floor((now - entry.lastUsed) / 1000),
      }));
  }

  /** A 2025-era client's MCP session began: its context is made on its first tool call, its idle clock starts now. */
  sessionStarted(id: string, principal: string): void {
    if (!this.settings.shared) this.#add('session', id, principal);
  }

  /** A 2025-era client ended its MCP session (DELETE): its context goes with it. */
  async sessionEnded(id: string): Promise<void> {
    const entry = this.#entries.get(`session:${id}`);
    if (entry) await this.#end(entry);
  }

  /** Stops the idle clocks and writes the sessions' traces (shutting down: the browser takes every context with it). */
  async stop(): Promise<void> {
    for (const entry of this.#entries.values()) clearTimeout(entry.timer);
    await Promise.allSettled(
      [this.#own, ...[...this.#entries.values()].map((entry) => entry.session)].map((session) => session.saveTrace()),
    );
  }

  #traceOf(kind: Kind | 'own', id: string): SessionTrace | undefined {
    const dir = this.settings.traceDir;
    if (!dir) return undefined;
    // A principal is whatever the token's holder is called: only safe characters go in a file name.
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    return { file: path.resolve(dir, `mcp-${kind}-${id.replace(/[^\w.-]/g, '_').slice(0, 80)}-${stamp}.zip`), log: this.settings.log };
  }

  #add(kind: Kind, id: string, principal: string): Entry {
    const reason = `This context ended (${this.#endedText()}); its tabs, cookies and storage are gone.`;
    const entry: Entry = {
      kind,
      id,
      principal,
      session: new BrowserSession(this.browser, true, reason, this.#traceOf(kind, id)),
      busy: 0,
      lastUsed: Date.now(),
    };
    this.#entries.set(`${kind}:${id}`, entry);
    this.#arm(entry);
    return entry;
  }

  #arm(entry: Entry): void {
    clearTimeout(entry.timer);
    if (this.settings.idleMs <= 0) return;
    // setTimeout takes at most 2^31 - 1 ms (24.8 days); a longer limit would fire at once.
    entry.timer = setTimeout(() => void this.#expire(entry), Math.min(this.settings.idleMs, 2 ** 31 - 1));
    // The server's own handles keep the process alive; a context's clock does not have to.
    entry.timer.unref?.();
  }

  async #expire(entry: Entry): Promise<void> {
    if (entry.busy > 0 || this.#entries.get(`${entry.kind}:${entry.id}`) !== entry) return;
    await this.#end(entry);
    // Said once it has ended: its tabs, cookies and storage are gone by the time anyone reads this.
    this.settings.log(
      `a context ended after ${this.#idleText()} without a tool call (${entry.kind === 'handle' ? 'a `context` handle' : entry.kind === 'session' ? 'an MCP session' : 'a default context'})`,
    );
    if (entry.kind === 'session') this.onSessionExpired?.(entry.id);
  }

  async #end(entry: Entry): Promise<void> {
    clearTimeout(entry.timer);
    this.#entries.delete(`${entry.kind}:${entry.id}`);
    await entry.session.close();
  }

  #endedText(): string {
    return this.settings.idleMs > 0 ? `it was closed, or ended after ${this.#idleText()} without a tool call` : 'it was closed';
  }

  #idleText(): string {
    const seconds = this.settings.idleMs / 1000;
    return seconds % 60 === 0 ? `${seconds / 60} minute${seconds === 60 ? '' : 's'}` : `${seconds} s`;
  }
}
