// The ids of the page text's lines (the N of `[N]` and `[F-N]`), kept with their elements for the
// document's life: a read gives an element it has seen before the id it had, and one it has not a
// number above any given so far. So an id an agent kept names its element after the page changed
// around it, and never another one; the first read of a document numbers its lines in order.
// Elements are held weakly: one the page drops is let go, and its id answers nothing.

/** What is kept of an element: its id or ids (a box whose text runs make several lines has one per run), and the read that last gave it one. */
interface Kept {
  ids: number | number[];
  read: number;
}

export class Ids {
  readonly #kept = new WeakMap<Element, Kept>();
  readonly #elements: Array<WeakRef<Element>> = [];
  /** Reads so far; the number of the one under way. */
  #reads = 0;
  #read = '';
  /** Ids below this were given before the read under way. */
  #base = 0;
  /** How many lines the elements that have more than one have had in the read under way. */
  #uses = new Map<Element, number>();

  /**
   * Starts a read. The same read walking again (it found closed shadow roots to enter) takes back
   * the ids its first walk gave, so a document's first read numbers as one walk would.
   */
  startRead(read: string): void {
    if (read === this.#read) {
      for (let id = this.#elements.length - 1; id >= this.#base; id--) {
        const el = this.#elements[id]!.deref();
        const kept = el && this.#kept.get(el);
        if (typeof kept?.ids === 'number') this.#kept.delete(el!);
        else (kept?.ids as number[] | undefined)?.pop();
      }
      this.#elements.length = this.#base;
    } else {
      this.#read = read;
      this.#base = this.#elements.length;
    }
    this.#reads++;
    this.#uses = new Map();
  }

  /** The id of the element's next line in this read. */
  idOf(el: Element): number {
    let kept = this.#kept.get(el);
    let use = 0;
    if (kept?.read === this.#reads) this.#uses.set(el, (use = this.#uses.get(el) ?? 1) + 1);
    else if (kept) kept.read = this.#reads;
    const ids = kept?.ids;
    const known = typeof ids === 'number' ? (use === 0 ? ids : undefined) : ids?.[use];
    if (known !== undefined) return known;
    const id = this.#elements.length;
    this.#elements.push(new WeakRef(el));
    if (!kept) this.#kept.set(el, (kept = { ids: id, read: this.#reads }));
    else if (typeof ids === 'number') kept.ids = [ids, id];
    else (ids as number[]).push(id);
    return id;
  }

  /** The element behind an id, while it is still in this document; null for one gone or never given. */
  byId(id: number): Element | null {
    const el = this.#elements[id]?.deref();
    return el?.isConnected && el.ownerDocument === document ? el : null;
  }
}
