// Where a job's page lives. `fresh` (the default): a browser context of its own, disposed with
// everything in it when the job ends. `recycle`: one context per concurrency slot, kept between
// jobs and cleared before the next one (cookies, the storage of every origin the job touched, the
// HTTP cache, permissions; the job's pages closed), which saves Chromium the cost of a new context
// per job. What clearing cannot reach over CDP (the HTTP auth cache, remembered client hints, open
// connections, DNS and HSTS entries) is shared by the slot's jobs, as docs/batch.md says; a context
// whose job met HTTP auth, failed or timed out is disposed, and the slot's next job gets a new one.

import type { Context } from '../driver/context.js';
import type { Page } from '../driver/page.js';
import { InvalidOptionError } from '../errors.js';
import type { Sdk } from '../sdk.js';
import type { StorageState } from '../types.js';
import { discoverTargets, JobWatch } from './jobWatch.js';

/** Where a batch job's page lives: a `fresh` browser context per job, or its slot's `recycle`d one (docs/batch.md). */
export type Isolation = 'fresh' | 'recycle';
const ISOLATIONS: readonly Isolation[] = ['fresh', 'recycle'];

export function checkIsolation(given: unknown, where: string): Isolation {
  if (given === undefined) return 'fresh';
  if (!ISOLATIONS.includes(given as Isolation))
    throw new InvalidOptionError(
      `${where} is "fresh" (a new browser context per job, the default) or "recycle", not ${JSON.stringify(given)}.`,
    );
  return given as Isolation;
}

/** One job's hold on a context: its page, and its end. */
export interface JobContext {
  /** The browser context the job runs in (a recycled one serves other jobs before and after). */
  readonly context: Context;
  newPage(): Promise<Page>;
  /** `clean`: the job succeeded, so a recycled context may serve the slot's next job. */
  end(clean: boolean): Promise<void>;
}

export interface JobContexts {
  open(sdk: Sdk, storageState: unknown): Promise<JobContext>;
}

function stateOption(storageState: unknown) {
  return storageState === undefined ? undefined : { storageState: storageState as StorageState };
}

export const freshContexts: JobContexts = {
  async open(sdk, storageState) {
    const context = await sdk.newContext(stateOption(storageState));
    return { context, newPage: () => context.newPage(), end: () => context.close() };
  },
};

/** A slot's context between jobs, with what its last job left to clear. */
interface Slot {
  sdk: Sdk;
  context: Context;
  /** A blank tab no job uses (see open()). */
  anchor: Page;
  browserContextId?: string;
  /** What the last job touched; undefined for a context no job has used. */
  touched?: { origins: Set<string>; storageKeys: Set<string> };
}

/** The recycled contexts of one worker: at most one per job running at once, since each job holds its slot's. */
export class ContextPool implements JobContexts {
  readonly #idle: Slot[] = [];
  #closed = false;

  async open(sdk: Sdk, storageState: unknown): Promise<JobContext> {
    for (let idle = this.#idle.pop(); idle; idle = this.#idle.pop()) {
      // Of a browser that was lost: gone with it.
      if (idle.sdk !== sdk) {
        void idle.context.close().catch(() => undefined);
        continue;
      }
      try {
        return this.#hold(idle, await this.#cleared(idle, storageState));
      } catch {
        // Not cleared (its renderer crashed, a command timed out): this job gets a new context.
        void idle.context.close().catch(() => undefined);
      }
    }
    const context = await sdk.newContext(stateOption(storageState));
    try {
      // Kept open for the slot's life: a context whose last tab closes loses its window, and the
      // next tab's new window costs Chromium about as much as a new context (its omnibox pop-up's
      // two WebUI pages), which is what recycling saves.
      const anchor = await context.newPage();
      return this.#hold({ sdk, context, anchor });
    } catch (error) {
      await context.close().catch(() => undefined);
      throw error;
    }
  }

  /** Disposes the contexts no job holds. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#idle.splice(0).map((slot) => slot.context.close().catch(() => undefined)));
  }

  /** The slot's context as its last job left it, cleared, with a blank page for the next job. */
  async #cleared(slot: Slot, storageState: unknown): Promise<Page> {
    const page = await slot.context.newPage();
    try {
      await this.#clear(slot, page);
      if (storageState !== undefined) await slot.context.setStorageState(storageState);
      return page;
    } catch (error) {
      await page.close().catch(() => undefined);
      throw error;
    }
  }

  /** A job's hold on the slot: `cleared`, its page when the context served a job before. */
  #hold(slot: Slot, cleared?: Page): JobContext {
    const { context } = slot;
    let watch: JobWatch | undefined;
    let offPages: (() => void) | undefined;
    return {
      context,
      newPage: async () => {
        const page = cleared ?? (await context.newPage());
        const root = page.session.childSession('')!; // the browser's own session ('' is its id)
        slot.browserContextId ??= (await root.send('Target.getTargetInfo', { targetId: page.id })).targetInfo.browserContextId;
        // A browser that refuses it (a guarded hosted one) still shows the frames' navigations.
        await discoverTargets(root).catch(() => undefined);
        watch = new JobWatch(root, slot.browserContextId!);
        // Popups and tabs the job's page opens are the job's too.
        offPages = context.on('page', (opened) => void watch?.session(opened.session));
        await watch.session(page.session);
        return page;
      },
      end: async (clean) => {
        offPages?.();
        await watch?.stop();
        const reusable = clean && watch !== undefined && !watch.authSeen && watch.complete && !this.#closed;
        if (reusable) {
          try {
            // Before clearing (at the next job's start), so nothing of this job writes after it.
            await Promise.all(context.pages().flatMap((page) => (page === slot.anchor ? [] : [page.close()])));
            // A job that closed the blank tab has cost the context its window: a new one is as cheap.
            if (!slot.anchor.isClosed()) {
              slot.touched = watch!;
              this.#idle.push(slot);
              return;
            }
          } catch {
            // A page that would not close: the context is in a state nobody knows.
          }
        }
        await context.close();
      },
    };
  }

  /** Forgets what the slot's last job left, using the next job's blank page (its session is in the context). */
  async #clear(slot: Slot, page: Page): Promise<void> {
    const root = page.session.childSession('')!;
    const { origins, storageKeys } = slot.touched!;
    // A first-party storage key is its origin's, which clearDataForOrigin has cleared.
    const partitioned = [...storageKeys].filter((key) => !origins.has(key.replace(/\/$/, '')));
    await Promise.all([
      slot.context.clearCookies(),
      page.session.send('Network.clearBrowserCache'),
      root.send('Browser.resetPermissions', { browserContextId: slot.browserContextId }),
      // Every kind of storage, service workers and OPFS included.
      ...[...origins].map((origin) => page.session.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })),
      ...partitioned.map((storageKey) => page.session.send('Storage.clearDataForStorageKey', { storageKey, storageTypes: 'all' })),
    ]);
  }
}
