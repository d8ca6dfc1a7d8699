// Shapes shared by the page script (this folder, bundled by esbuild) and the host side of the snapshot.

/** What the host asks of one frame's capture. */
export interface CaptureOptions {
  /**
   * 'capture' walks the page, numbering its lines with the document's ids; 'xpaths' returns the
   * XPaths of the elements behind `ids` (null for one gone); 'element' returns the XPath of the
   * element passed in place of the first frame.
   */
  mode: 'capture' | 'xpaths' | 'element';
  /** Names the capture: walking again under the same key (closed roots found) numbers as its first walk did. */
  key: string;
  ids?: number[];
  /** Ordinal of this frame in the page: the F of `[F-N]`. */
  frame: number;
  /** Keys (frame ids) of the child-frame elements passed after the root, in the same order. */
  frameKeys: string[];
  /** Emit the RootWebArea line (the main frame of an unscoped capture). */
  rootLine: boolean;
  /** Documents with at most this many elements are always scanned for closed shadow roots. */
  smallDocument: number;
  /**
   * 'viewport': the text is the full one, and `viewport` says which lines show; 'interactive': the
   * text holds only what can be acted on, with context. Default 'full'.
   */
  view?: 'full' | 'viewport' | 'interactive';
  /** viewport: the lines of this frame's top dialog count as shown wherever they are. */
  dialogs?: boolean;
}

/** viewport: what of one frame shows in that frame's own viewport (its window's coordinates). */
export interface ViewportReport {
  /** Flat [node, left, top, right, bottom, ...]: the lines whose box shows, and where. */
  shown: number[];
  /** Nodes inside the open top dialog: kept wherever they are. */
  dialog: number[];
  /**
   * Flat [frameKey, contentLeft, contentTop, visibleLeft, visibleTop, visibleRight, visibleBottom,
   * inDialog (0|1), ...] for the child frames shown: where each one's window starts, and the part
   * of it that shows here (right <= left when none does).
   */
  frames: Array<string | number>;
}

/** One frame's part of the snapshot, as plain JSON. */
export interface CaptureResult {
  /** Lines at depth 0 and below; a child frame's content goes where a line is `<indent>\u0001<key>`. */
  text: string;
  /** Flat [nodeNumber, absoluteUrl, ...] for links. */
  links: Array<number | string>;
  /** Flat [frameKey, node number of its Iframe line, ...] in the order the frames appear. */
  frames: Array<number | string>;
  /**
   * What the host needs to decide whether to look for closed shadow roots the walk could not enter:
   * whether the document is small enough to scan whole, the elements that may host one (kept by
   * the engine), and how many closed roots the engine knows in this document.
   */
  scan: { small: boolean; suspects: number; known: number };
  /** Only with view 'viewport'. */
  viewport?: ViewportReport;
}

/** The part of the selector engine (src/injected/engine) the walk relies on. */
export interface EngineLike {
  rootOf(el: Element): ShadowRoot | null;
  noteSuspects(els: Element[]): void;
  closedRootCount(): number;
  isScanned(el: Element): boolean;
  /** The page text's ids, kept with their elements for the document's life (engine/ids.ts). */
  ids: {
    startRead(read: string): void;
    idOf(el: Element): number;
    byId(id: number): Element | null;
  };
}
