import type { Ids } from './ids.js';
import type { ElementHelpers } from './element.js';

/** A box in the element's own frame's viewport (CSS pixels). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Why the element may not be pressed yet: `moved` (it is moving), or `receiver` ('' when it, or a label of it, is what is at its centre; null when nothing is). */
export interface Readiness {
  why: string;
  moved: boolean;
  receiver: string | null;
}

/** What became of a watched press. */
export interface Verdict {
  /** pressed: it reached the element; blocked: it would not have, and was stopped; missed: none
   *  came to this document (then `receiver` is what is at the element's centre now); expired: the
   *  watch ended before a press came. */
  state: 'pressed' | 'blocked' | 'missed' | 'expired';
  receiver: string | null;
  moved: boolean;
}

/** The object the host holds (by objectId) inside each frame's isolated world. */
export interface Engine extends ElementHelpers {
  /** Resolve `selector` within this frame's document (its `nth` match, counting from 0, in the order
   *  countMatches counts them). Returns the Element when found; otherwise a string:
   *  "none"                 nothing matches
   *  "hop:<rest>"           the selector continues into an <iframe>/<frame> element's content document; the
   *                         element is stashed and read with takeHop(); <rest> is the remaining selector in the
   *                         SAME syntax (XPath rest is an absolute XPath like "/html/body/div[2]"; CSS rest is the
   *                         remaining parts joined by " >> ")
   *  "syntax:<message>"     the selector is malformed (message says what and where) */
  resolve(selector: string, nth?: number): Element | string;
  /** How many elements match `selector` in this document; a string as resolve() answers when the
   *  selector continues into a frame ("hop:<rest>", its iframe stashed) or is malformed. */
  countMatches(selector: string): number | string;
  /** Returns and clears the iframe element stashed by the last "hop:" result. */
  takeHop(): Element | null;
  /** The host discovers CLOSED shadow roots via CDP (page JS cannot see them) and registers them here, so
   *  traversal can enter them. Key the map by root.host (WeakMap). */
  registerClosedShadowRoot(root: ShadowRoot): void;
  /** Number of closed roots registered (for tests/diagnostics). */
  closedRootCount(): number;
  /** The element's shadow root: its open one, or a closed one registered earlier. */
  rootOf(el: Element): ShadowRoot | null;
  /** Page scripts (the snapshot walk) report elements that may host a closed root we have not seen;
   *  after the host scanned the document, they are remembered so the next walk does not ask again. */
  noteSuspects(els: Element[]): void;
  /** The suspects of the last walk, for the host to look at each one over CDP. */
  suspects(): Element[];
  markSuspectsScanned(): void;
  isScanned(el: Element): boolean;
  /** The ids of the page text's lines in this document, each kept with its element (ids.ts); what
   *  `ref=N` resolves. */
  ids: Ids;
  /** Before a click: why the element cannot take it ('' when it can), and its first box (pointer.ts). */
  aim(el: Element): { why: string; box: Box | null };
  /** Just before a press: whether the element is disabled, moving or covered; when none, the press is watched. */
  arm(el: Element, strict: boolean, ms: number): Promise<Readiness>;
  /** Watches the next press for one that `el` would not receive, and stops it (an <iframe> on the way down). */
  watchPress(el: Element, box: Box | null, still: boolean, ms: number): void;
  /** Ends the watch: what became of the press. */
  verdict(): Promise<Verdict | null>;
  disarm(): void;
  /** Names an element for a message, as the cover of `target` when given. */
  describe(hit: Element, target?: Element | null): string;
  /** The node's absolute XPath in this document, `name[k]` at every step (xpathOf.ts). */
  xpathOf(node: Node): string;
  /** How far the document is scrolled: what turns viewport coordinates into the document's. */
  scrollOffsets(): [number, number];
  /** Resolves once the document drew `frames` more times (animation frames). */
  drawn(frames: number): Promise<boolean>;
  /** Resolves once `selector` is in `state` here, or a hop or a syntax error says more: as resolve()
   *  answers; "pending" when `ms` passed first (wait.ts). `pierce` false: shadow roots are left out. */
  waitFor(selector: string, state: string, pierce: boolean, ms: number): Promise<string>;
  /** Screenshot effects (paint.ts): a style sheet added and taken back, animations settled, masks. */
  addStyle(css: string): string;
  removeStyle(token: string): void;
  settleAnimations(): void;
  mask(el: Element, color: string, token: string): void;
  unmask(token: string): void;
}

/** A match that lives in a child frame: the frame element here, and what to resolve inside its document. */
export interface Hop {
  frame: Element;
  rest: string;
}

/** What a selector language resolver hands back to the dispatcher in index.ts. */
export type Outcome =
  | { kind: 'found'; element: Element }
  /** Every match, when asked for all of them: light DOM first, then each shadow root in composed order. */
  | { kind: 'all'; elements: Element[] }
  | { kind: 'hop'; hop: Hop }
  | { kind: 'none' }
  | { kind: 'syntax'; message: string };
