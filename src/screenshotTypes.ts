// The options of page.screenshot() and frame.screenshot(): Tendril's own and Stagehand 3's.

/** A rectangle of the page in CSS pixels, from the document's top-left corner. */
export interface ScreenshotClip {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Options of `page.screenshot()`: Tendril's `selector` and `timeoutMs`, and Stagehand's (Playwright's) others. */
export interface ScreenshotOptions {
  /** XPath or CSS (through iframes and shadow roots): that element, scrolled into view, as far as the viewport shows it. */
  selector?: string;
  /** Deadline in ms; default the Sdk's timeout. `timeout` is the same, under Stagehand's name. */
  timeoutMs?: number;
  timeout?: number;
  /** Default "png", or "jpeg" when `path` ends in .jpg or .jpeg. */
  type?: 'png' | 'jpeg';
  /** JPEG only: 0 to 100. */
  quality?: number;
  /** The whole scrollable page rather than what the viewport shows. */
  fullPage?: boolean;
  clip?: ScreenshotClip;
  /** Elements (locators, or selectors) covered with a box of `maskColor` (default #FF00FF) in the picture. */
  mask?: ReadonlyArray<{ readonly selector: string } | string>;
  maskColor?: string;
  /** PNG only: the page's default white background left transparent. */
  omitBackground?: boolean;
  /** Also writes the picture to this file (Node only). */
  path?: string;
  /** "device" (default): a pixel per device pixel; "css": a pixel per CSS pixel. */
  scale?: 'css' | 'device';
  /** "disabled": finite animations jump to their end and endless ones to their start. Default "allow". */
  animations?: 'disabled' | 'allow';
  /** Default "hide": no text caret in the picture. */
  caret?: 'hide' | 'initial';
  /** CSS applied to every frame while the picture is taken. */
  style?: string;
}

/** Options of `frame.screenshot()`, as Stagehand's. */
export interface FrameScreenshotOptions {
  /** Main frame only: the whole scrollable page. */
  fullPage?: boolean;
  /** The main frame's as page.screenshot()'s; another frame's from its top-left corner as the page shows it. */
  clip?: ScreenshotClip;
  type?: 'png' | 'jpeg';
  quality?: number;
  /** Pixels per CSS pixel and device pixel, 0.1 to 2 (default 1). */
  scale?: number;
  timeoutMs?: number;
}
