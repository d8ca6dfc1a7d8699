// The ids of the page text's lines (the N of `[N]` and `[F-N]`), kept with their elements for the
// document's life: a read gives an element it has seen before the id it had, and one it has not a
// number above any given so far. So an id an agent kept names its element after the page changed
// around it, and never another one; the first read of a document numbers its lines in order.
// Elements are held weakly: one the page drops is let go, and its id answers nothing.

export class Ids {
  /** An element's ids: one per line it had in a read (a box whose text runs make several lines). */
  readonly #ofElement = new WeakMap<Element, number | number[]>();
  readonly #elements: Array<WeakRef<Element>> = [];
  /** How many lines each element has had in the read under way. */
  #uses = new Map<Element, number>();
  #read = '';
  /** Ids below this were given before the read under way. */
  #base = 0;

  /**
   * Starts a read. The same read walking again (it found closed shadow roots to enter) takes back
   * the ids its first walk gave, so a document's first read numbers as one walk would.
   */
  startRead(read: string): void {
    if (read === this.#read) {
      for (let id = this.#elements.length - 1; id >= this.#base; id--) {
        const el = this.#elements[id]!.deref();
        const ids = el && this.#ofElement.get(el);
        if (typeof ids === 'number') this.#ofElement.delete(el!);
        else ids?.pop();
      }
      this.#elements.length = this.#base;
    } else {
      this.#read = read;
      this.#base = this.#elements.length;
    }
    this.#uses = new Map();
  }

  /** The id of the element's next line in this read. */
  idOf(el: Element): number {
    const use = this.#uses.get(el) ?? 0;
    this.#uses.set(el, use + 1);
    const ids = this.#ofElement.get(el);
    const known = typeof ids === 'number' ? (use === 0 ? ids : undefined) : ids?.[use];
    if (known !== undefined) return known;
    const id = this.#elements.length;
    this.#elements.push(new WeakRef(el));
    if (ids === undefined) this.#ofElement.set(el, id);
    else if (typeof ids === 'number') this.#ofElement.set(el, [ids, id]);
    else ids.push(id);
    return id;
  }

  /** The element behind an id, while it is still in this document; null for one gone or never given. */
  byId(id: number): Element | null {
    const el = this.#elements[id]?.deref();
    return el?.isConnected && el.ownerDocument === document ? el : null;
  }
}
