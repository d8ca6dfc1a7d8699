// The Locator a caller holds (Stagehand 3's, plus Tendril's own evaluate, getAttribute and frame):
// a selector, where it starts and which match it means, resolved anew on every call. The work is
// the page's LocatorDriver (locatorDriver.ts); this module knows neither frames nor pages (F and E
// stand for them), so frame.ts and page.ts can both make locators without an import circle.

import { ElementNotActionableError, ElementObscuredError, InvalidOptionError } from '../errors.js';
import type { HighlightOptions, MouseButton, SetInputFilesArgument } from '../types.js';
import { splitHops } from '../injected/engine/css.js';
import { milliseconds } from '../util/checks.js';
import type { Instrumentation } from '../util/instrumentation.js';

/** What a locator means: where its selector starts, and which of the matches. */
export interface LocatorTarget<F> {
  /** The frame the selector starts in; undefined: the page's main frame at each use. */
  readonly frame?: F;
  /** Selectors of the iframes entered first, in turn (a frameLocator chain, a deepLocator's hops). */
  readonly frames: readonly string[];
  readonly selector: string;
  /** The match meant, from 0; undefined: the first, no nth() given. */
  readonly nth?: number;
}

/** What locators ask of their page: resolving, and each action on a resolved element `E` of a frame `F`. */
export interface LocatorDriver<F, E> {
  readonly defaultTimeoutMs: number;
  /** @internal The seam the locator's calls pass (util/instrumentation.ts): its page's. */
  readonly instrumentation?: Instrumentation;
  /** The class of the locators made on it: the Stagehand entry's adds Stagehand's methods; absent: Locator. */
  Locator?: typeof Locator;
  mainFrame(): F;
  /** The frame `frames` lead to from `from` (the main frame when undefined). */
  enter(from: F | undefined, frames: readonly string[], timeoutMs: number): Promise<F>;
  resolve(target: LocatorTarget<F>, timeoutMs: number): Promise<E>;
  count(target: LocatorTarget<F>, timeoutMs: number): Promise<number>;
  release(element: E): void;
  frameOf(element: E): F;
  evaluate<Result, Arg>(
    element: E,
    fn: (element: Element, arg: Arg) => Result | Promise<Result>,
    arg: Arg,
    timeoutMs: number,
  ): Promise<Result>;
  /** One of the selector engine's element helpers (src/injected/engine/element.ts). */
  helper<Result>(element: E, name: string, args: unknown[], timeoutMs: number): Promise<Result>;
  click(element: E, button: MouseButton, clickCount: number, timeoutMs: number): Promise<void>;
  tap(element: E, timeoutMs: number): Promise<void>;
  hover(element: E, timeoutMs: number): Promise<void>;
  fill(element: E, value: string, timeoutMs: number): Promise<void>;
  type(element: E, text: string, delayMs: number, timeoutMs: number): Promise<void>;
  scrollTo(element: E, fraction: number, timeoutMs: number): Promise<void>;
  centroid(element: E, timeoutMs: number): Promise<{ x: number; y: number }>;
  /** The target's border box in the top page's viewport, without scrolling (frame.getLocationForSelector). */
  locationOf(target: LocatorTarget<F>, timeoutMs: number): Promise<{ x: number; y: number; width: number; height: number }>;
  backendNodeId(element: E, timeoutMs: number): Promise<number>;
  highlight(element: E, options: HighlightOptions, timeoutMs: number): Promise<void>;
  setInputFiles(element: E, files: SetInputFilesArgument, timeoutMs: number): Promise<void>;
}

const BUTTONS: readonly MouseButton[] = ['left', 'right', 'middle'];

/**
 * A selector and which of its matches: resolved anew on each call, so it follows the page as it
 * changes. XPath (`/…`, `xpath=…`), CSS (`css=…` or anything else) or `text=…`, through open and
 * closed shadow roots, into iframes (out-of-process ones too) as docs/locators.md says. Functions
 * given to `evaluate` run in an isolated world: they see the DOM, not the page's globals.
 */
export class Locator<F, E> {
  readonly #driver: LocatorDriver<F, E>;
  readonly #target: LocatorTarget<F>;

  /** @internal */
  constructor(driver: LocatorDriver<F, E>, target: LocatorTarget<F>) {
    if (typeof target.selector !== 'string')
      throw new InvalidOptionError(`A locator takes a selector string, not ${typeof target.selector}.`);
    this.#driver = driver;
    this.#target = target;
  }

  get selector(): string {
    return this.#target.selector;
  }

  /** @internal Resolves to an element handle; the caller must release it. */
  resolve(timeoutMs = this.#driver.defaultTimeoutMs): Promise<E> {
    return this.#driver.resolve(this.#target, timeoutMs);
  }

  /**
   * @internal Every match, or the nth() one (as Stagehand's screenshot masks take a locator), found
   * one by one; the caller must release each.
   */
  async resolveAll(timeoutMs = this.#driver.defaultTimeoutMs): Promise<E[]> {
    if (this.#target.nth !== undefined) return [await this.resolve(timeoutMs)];
    const found: E[] = [];
    try {
      const count = await this.#driver.count(this.#target, timeoutMs);
      for (let nth = 0; nth < count; nth++) found.push(await this.#driver.resolve({ ...this.#target, nth }, timeoutMs));
      return found;
    } catch (error) {
      for (const element of found) this.#driver.release(element);
      throw error;
    }
  }

  /** The frame the selector starts in (it may lead into another: see frame()). */
  getFrame(): F {
    return this.#target.frame ?? this.#driver.mainFrame();
  }

  /** The frame the element lives in (useful after crossing iframes). */
  frame(): Promise<F> {
    return this.#on('find', async (element) => this.#driver.frameOf(element));
  }

  /** A locator for the match at `index`, counting from 0 as count() does. */
  nth(index: number): Locator<F, E> {
    const value = Number(index);
    if (!Number.isFinite(value) || value < 0)
      throw new InvalidOptionError(`locator().nth() takes a match index from 0 up, not ${String(index)}.`);
    return locatorOn(this.#driver, { ...this.#target, nth: Math.floor(value) });
  }

  first(): Locator<F, E> {
    return this.nth(0);
  }

  /** How many elements match now (in the frame the selector leads to); 0 when none. */
  count(): Promise<number> {
    return this.#driver.count(this.#target, this.#driver.defaultTimeoutMs);
  }

  /** Runs `fn(element, arg)` on the matched element and returns its JSON-serialisable result. */
  evaluate<Result, Arg = undefined>(fn: (element: Element, arg: Arg) => Result | Promise<Result>, arg?: Arg): Promise<Result> {
    return this.#on('evaluate on', (element, timeoutMs) => this.#driver.evaluate(element, fn, arg as Arg, timeoutMs));
  }

  getAttribute(name: string): Promise<string | null> {
    return this.evaluate((element, attribute) => element.getAttribute(attribute), name);
  }

  /** Real mouse input at the element's centre, once it holds still and is what the pointer is over. */
  click(options: { button?: MouseButton; clickCount?: number } = {}): Promise<void> {
    const { button = 'left', clickCount = 1 } = options ?? {};
    if (!BUTTONS.includes(button))
      throw new InvalidOptionError(`click: \`button\` is "left", "right" or "middle", not ${JSON.stringify(button)}.`);
    if (!Number.isInteger(clickCount) || clickCount < 1)
      throw new InvalidOptionError(`click: \`clickCount\` is a whole number from 1 up, not ${String(clickCount)}.`);
    return this.#on('click', (element, timeoutMs) => this.#driver.click(element, button, clickCount, timeoutMs));
  }

  /** A real touch (touchStart, touchEnd) at the element's centre. */
  tap(): Promise<void> {
    return this.#on('tap', (element, timeoutMs) => this.#driver.tap(element, timeoutMs));
  }

  /** Moves the mouse to the element's centre. */
  hover(): Promise<void> {
    return this.#on('hover', (element, timeoutMs) => this.#driver.hover(element, timeoutMs));
  }

  /** Dispatches a DOM `click` event on the element itself: no pointer input, no hit test. */
  sendClickEvent(options: { bubbles?: boolean; cancelable?: boolean; composed?: boolean; detail?: number } = {}): Promise<void> {
    const { bubbles = true, cancelable = true, composed = true, detail = 1 } = options ?? {};
    return this.#on('send a click event to', (element, timeoutMs) =>
      this.#driver.helper(element, 'clickEvent', [{ bubbles, cancelable, composed, detail }], timeoutMs),
    );
  }

  /** Replaces the field's value (an input, a textarea, an editable element), firing input and change. */
  fill(value: string): Promise<void> {
    if (typeof value !== 'string') throw new InvalidOptionError(`fill takes a string, not ${typeof value}.`);
    return this.#on('fill', (element, timeoutMs) => this.#driver.fill(element, value, timeoutMs), { value });
  }

  /** Focuses the element and types `text` key by key, `delay` ms apart (default 0). */
  type(text: string, options: { delay?: number } = {}): Promise<void> {
    if (typeof text !== 'string') throw new InvalidOptionError(`type takes a string, not ${typeof text}.`);
    const delay = milliseconds(options?.delay ?? 0, 'type: `delay`');
    return this.#on('type into', (element, timeoutMs) => this.#driver.type(element, text, delay, timeoutMs + delay * text.length), {
      text,
    });
  }

  /** Selects the options whose value or label is given, in a <select>; resolves with the values selected. */
  selectOption(values: string | string[]): Promise<string[]> {
    const list = Array.isArray(values) ? values : [values];
    if (!list.every((value) => typeof value === 'string'))
      throw new InvalidOptionError('selectOption takes an option value or label, or an array of them.');
    return this.#on('select an option of', async (element, timeoutMs) => {
      const { values: chosen, why } = await this.#driver.helper<{ values: string[]; why: string }>(
        element,
        'selectValues',
        [list],
        timeoutMs,
      );
      if (why) throw new ElementNotActionableError(why);
      return chosen;
    });
  }

  /** Scrolls the element (or, when it does not scroll, the page) to `percent` (0–100, or "50%") of the way down. */
  scrollTo(percent: number | string): Promise<void> {
    const value = typeof percent === 'number' ? percent : Number.parseFloat(String(percent).replace('%', ''));
    if (!Number.isFinite(value))
      throw new InvalidOptionError(`scrollTo takes a percentage (0-100, or "50%"), not ${JSON.stringify(percent)}.`);
    const fraction = Math.min(100, Math.max(0, value)) / 100;
    return this.#on('scroll', (element, timeoutMs) => this.#driver.scrollTo(element, fraction, timeoutMs));
  }

  /** Sets the files of an <input type="file"> (paths or in-memory payloads); [] clears it. */
  setInputFiles(files: SetInputFilesArgument): Promise<void> {
    return this.#on('set the files of', (element, timeoutMs) => this.#driver.setInputFiles(element, files, timeoutMs));
  }

  isVisible(): Promise<boolean> {
    return this.#read<boolean>('visible');
  }

  /** A checked checkbox or radio, or an element with aria-checked="true". */
  isChecked(): Promise<boolean> {
    return this.#read<boolean>('checked');
  }

  /** The value of an input, textarea or select; the text of an editable element; else "". */
  inputValue(): Promise<string> {
    return this.#read<string>('value');
  }

  textContent(): Promise<string> {
    return this.#read<string>('textContent');
  }

  innerText(): Promise<string> {
    return this.#read<string>('innerText');
  }

  innerHtml(): Promise<string> {
    return this.#read<string>('innerHTML');
  }

  /** Scrolls the element into view and returns its centre in the top page's viewport, rounded. */
  centroid(): Promise<{ x: number; y: number }> {
    return this.#on('measure', (element, timeoutMs) => this.#driver.centroid(element, timeoutMs));
  }

  /** The element's DevTools backend node id, stable for as long as the element exists. */
  backendNodeId(): Promise<number> {
    return this.#on('find', (element, timeoutMs) => this.#driver.backendNodeId(element, timeoutMs));
  }

  /** Draws Chrome's highlight over the element for `durationMs` (default 800). */
  highlight(options: HighlightOptions = {}): Promise<void> {
    const durationMs = milliseconds(options?.durationMs ?? 800, 'highlight: `durationMs`');
    return this.#on('highlight', (element, timeoutMs) =>
      this.#driver.highlight(element, { ...options, durationMs }, timeoutMs + durationMs),
    );
  }

  #read<Result>(what: string): Promise<Result> {
    return this.#on('read', (element, timeoutMs) => this.#driver.helper<Result>(element, 'readState', [what], timeoutMs));
  }

  /** Resolves, runs `work` on the element, lets it go; an element that cannot take it says which and why. */
  #on<Result>(action: string, work: (element: E, timeoutMs: number) => Promise<Result>, typed?: Record<string, string>): Promise<Result> {
    const seam = this.#driver.instrumentation;
    if (!seam) return this.#onElement(action, work, undefined);
    const describe = () => ({
      api: `Locator.${action.split(' ')[0]}`,
      title: `${action} ${this.#target.selector}`,
      params: { selector: this.#target.selector, frames: this.#target.frames, ...typed },
    });
    return seam.run(describe, (call) => this.#onElement(action, work, typed && call?.notes));
  }

  async #onElement<Result>(
    action: string,
    work: (element: E, timeoutMs: number) => Promise<Result>,
    notes: Record<string, unknown> | undefined,
  ): Promise<Result> {
    const timeoutMs = this.#driver.defaultTimeoutMs;
    const element = await this.#driver.resolve(this.#target, timeoutMs);
    try {
      // What goes into a password field is a secret: a trace shows it redacted.
      if (notes)
        notes.secret = await this.#driver.evaluate(element, (node) => (node as HTMLInputElement).type === 'password', undefined, timeoutMs);
      return await work(element, timeoutMs);
    } catch (error) {
      throw explained(error, `Cannot ${action} "${this.#target.selector}"`);
    } finally {
      this.#driver.release(element);
    }
  }
}

/** The actions' "it is disabled" becomes `Cannot click "#buy": it is disabled.` */
function explained(error: unknown, what: string): unknown {
  if (!(error instanceof ElementNotActionableError) || !/^(it|its|the) /.test(error.message)) return error;
  const message = `${what}: ${error.message}.`;
  return error instanceof ElementObscuredError
    ? new ElementObscuredError(message, error.receiver)
    : new ElementNotActionableError(message, { cause: error });
}

/** A locator of the driver's class (LocatorDriver.Locator). */
export function locatorOn<F, E>(driver: LocatorDriver<F, E>, target: LocatorTarget<F>): Locator<F, E> {
  return new (driver.Locator ?? Locator)(driver, target);
}

/**
 * Iframes found by selector, in turn (Stagehand's FrameLocator): `locator()` finds elements in the
 * last one's document, resolving the chain anew on each use.
 */
export class FrameLocator<F, E> {
  /** @internal */
  constructor(
    private readonly driver: LocatorDriver<F, E>,
    private readonly frames: readonly string[],
    private readonly from?: F,
  ) {
    if (!frames.every((each) => typeof each === 'string' && each.trim()))
      throw new InvalidOptionError('frameLocator takes a non-empty selector of an <iframe>.');
  }

  frameLocator(selector: string): FrameLocator<F, E> {
    return new FrameLocator(this.driver, [...this.frames, selector], this.from);
  }

  locator(selector: string): Locator<F, E> {
    return locatorOn(this.driver, { frame: this.from, frames: this.frames, selector });
  }

  /** The frame the chain leads to now. */
  resolveFrame(): Promise<F> {
    return this.driver.enter(this.from, this.frames, this.driver.defaultTimeoutMs);
  }
}

/**
 * A deepLocator's selector: parts joined by `>>` (outside quotes and brackets), each but the last
 * an iframe to enter, as Stagehand's deepLocator reads them; a deep XPath needs no `>>`.
 */
export function deepTarget<F>(selector: string, frame?: F): LocatorTarget<F> {
  if (typeof selector !== 'string') throw new InvalidOptionError(`deepLocator takes a selector string, not ${typeof selector}.`);
  const parts = splitHops(selector);
  if (parts.some((part) => !part)) throw new InvalidOptionError(`deepLocator: "${selector}" has an empty part around ">>".`);
  return { frame, frames: parts.slice(0, -1), selector: parts[parts.length - 1]! };
}
