// Which page is the active one: the page most recently opened (a tab, a popup) or chosen with
// setActivePage, that is still open. It is where sdk.extract, act and observe go when no page is
// given. A page that is about to appear (one being attached, or one a page just asked for with
// window.open or a target=_blank link) can be waited for: awaitActivePage.

import { deferred } from '../util/time.js';

/** A popup asked for this recently that has not appeared yet is still waited for. */
const OPENING_MS = 500;

/** What the tracker needs of a page (page.ts's Page has it). */
export interface ActivatablePage {
  isClosed(): boolean;
}

export class ActivePages<P extends ActivatablePage> {
  /** Least recently active first. */
  #order: P[] = [];
  #openedAt = -Infinity;
  #addedAt = -Infinity;
  #changed = new Set<() => void>();

  /** The active page; undefined when every page is closed. */
  current(): P | undefined {
    for (let i = this.#order.length - 1; i >= 0; i--) if (!this.#order[i]!.isClosed()) return this.#order[i];
    return undefined;
  }

  /** A page was opened, or chosen: it is the active one now. */
  activate(page: P, added = false): void {
    this.#order = [...this.#order.filter((each) => each !== page && !each.isClosed()), page];
    if (added) this.#addedAt = Date.now();
    this.#notify();
  }

  forget(page: P): void {
    this.#order = this.#order.filter((each) => each !== page);
    this.#notify();
  }

  /** A page asked to open another (Page.windowOpen): it may appear in a moment. */
  opening(): void {
    this.#openedAt = Date.now();
  }

  /** Something that `pending` depends on changed (a page being attached is ready, or failed). */
  settled(): void {
    this.#notify();
  }

  /**
   * The active page once no page is on its way (`attaching` says whether one is being attached), or
   * once `timeoutMs` is over; undefined when there is none then.
   */
  async await(timeoutMs: number, attaching: () => boolean): Promise<P | undefined> {
    const deadline = Date.now() + timeoutMs;
    const pending = () => attaching() || (this.#openedAt > this.#addedAt && Date.now() - this.#openedAt <= OPENING_MS);
    while (pending() && Date.now() < deadline) {
      const change = deferred<void>();
      const wake = () => change.resolve();
      this.#changed.add(wake);
      // A window.open that never yields a page stops counting after OPENING_MS, without an event.
      const timer = setTimeout(wake, Math.min(deadline - Date.now(), OPENING_MS));
      try {
        await change.promise;
      } finally {
        clearTimeout(timer);
        this.#changed.delete(wake);
      }
    }
    return this.current();
  }

  #notify(): void {
    for (const wake of this.#changed) wake();
  }
}
