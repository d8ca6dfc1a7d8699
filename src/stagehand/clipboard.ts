// Stagehand's context.clipboard (a StagehandContext's, page.ts): the browser's clipboard, read and
// written through a page (the active one unless `{ page }` says), and the page's own copy, cut and
// paste shortcuts. Chrome lets a document use the clipboard only while it has focus and, to read,
// permission: each call grants the permission to the page's origin, brings its tab to the front (it
// becomes the active page, as in Stagehand) and turns on focus emulation, without which a headless
// tab never has focus.

import type { Context } from '../driver/context.js';
import { Page } from '../driver/page.js';
import { ready } from '../driver/pageInput.js';
import { InvalidOptionError, PageNotFoundError, SdkEvalError } from '../errors.js';

export interface ClipboardOptions {
  /** The page to act in; default the context's active page. */
  page?: Page;
}

export interface ClipboardPasteOptions extends ClipboardOptions {
  /** The paste chord; default "ControlOrMeta+V" (Meta on a Mac, Control elsewhere). */
  shortcut?: 'ControlOrMeta+V' | 'Meta+V' | 'Control+V';
}

/** Stagehand's BrowserClipboard. */
export interface BrowserClipboard {
  readText(options?: ClipboardOptions): Promise<string>;
  writeText(text: string, options?: ClipboardOptions): Promise<void>;
  clear(options?: ClipboardOptions): Promise<void>;
  paste(options?: ClipboardPasteOptions): Promise<void>;
  copy(options?: ClipboardOptions): Promise<void>;
  cut(options?: ClipboardOptions): Promise<void>;
}

const SHORTCUTS = ['ControlOrMeta+V', 'Meta+V', 'Control+V'];
const PERMISSIONS = ['clipboardReadWrite', 'clipboardSanitizedWrite'] as const;

/** A StagehandContext's `clipboard` (page.ts). */
export class ContextClipboard implements BrowserClipboard {
  constructor(private readonly context: Context) {}

  async readText(options?: ClipboardOptions): Promise<string> {
    const page = await this.#prepare('readText', options, true);
    return String(await this.#run(page, 'readText', 'navigator.clipboard.readText()'));
  }

  async writeText(text: string, options?: ClipboardOptions): Promise<void> {
    if (typeof text !== 'string') throw new InvalidOptionError(`clipboard.writeText(text): \`text\` must be a string, not ${typeof text}.`);
    const page = await this.#prepare('writeText', options, true);
    await this.#run(page, 'writeText', `navigator.clipboard.writeText(${JSON.stringify(text)})`);
  }

  async clear(options?: ClipboardOptions): Promise<void> {
    const page = await this.#prepare('clear', options, true);
    await this.#run(page, 'clear', 'navigator.clipboard.writeText("")');
  }

  /** Presses the paste chord in whatever has focus in the page (an out-of-process iframe's field too). */
  async paste(options?: ClipboardPasteOptions): Promise<void> {
    const shortcut = options?.shortcut ?? 'ControlOrMeta+V';
    if (!SHORTCUTS.includes(shortcut)) {
      throw new InvalidOptionError(
        `clipboard.paste(): \`shortcut\` must be one of ${SHORTCUTS.map((each) => `"${each}"`).join(', ')}, not ${JSON.stringify(shortcut)}.`,
      );
    }
    const page = await this.#prepare('paste', options, false, ['shortcut']);
    await page.keyPress(shortcut);
  }

  /** Presses the copy chord: what is selected where the page has focus goes to the clipboard. */
  async copy(options?: ClipboardOptions): Promise<void> {
    const page = await this.#prepare('copy', options, false);
    await page.keyPress('ControlOrMeta+C');
  }

  /** Presses the cut chord: what is selected in the focused field goes to the clipboard and leaves the field. */
  async cut(options?: ClipboardOptions): Promise<void> {
    const page = await this.#prepare('cut', options, false);
    await page.keyPress('ControlOrMeta+X');
  }

  /** The page to act in, checked, in front and focused; with `grant`, allowed to use the clipboard. */
  async #prepare(method: string, options: ClipboardOptions | undefined, grant: boolean, more: string[] = []): Promise<Page> {
    if (options !== undefined && options !== null) {
      if (typeof options !== 'object' || Array.isArray(options))
        throw new InvalidOptionError(`clipboard.${method}(options): options must be an object such as { page }.`);
      const unknown = Object.keys(options).filter((name) => name !== 'page' && !more.includes(name));
      if (unknown.length) {
        throw new InvalidOptionError(
          `clipboard.${method}(options): unknown option ${unknown.map((name) => `\`${name}\``).join(', ')}; it takes ${['page', ...more].map((name) => `\`${name}\``).join(' and ')}.`,
        );
      }
    }
    const given = options?.page;
    if (given !== undefined && !(given instanceof Page)) {
      throw new InvalidOptionError(`clipboard.${method}(): \`page\` must be a page of this context (context.pages(), context.newPage()).`);
    }
    const page = given ?? this.context.activePage();
    if (!page) throw new PageNotFoundError(`clipboard.${method}(): no page is open; open one with context.newPage().`);
    // Checks that the page is open and this context's, and brings its tab to the front.
    this.context.setActivePage(page);
    page.assertOpen(`clipboard.${method}()`);
    const timeoutMs = page.defaultTimeoutMs;
    await Promise.all([ready(page, timeoutMs), grant ? this.#grant(page) : undefined]);
    return page;
  }

  async #grant(page: Page): Promise<void> {
    let origin: string | undefined;
    try {
      const url = new URL(page.url());
      if (url.protocol === 'http:' || url.protocol === 'https:') origin = url.origin;
    } catch {
      // no URL yet
    }
    // Chrome grants nothing to other pages (about:blank, data:); what they may do, #run finds out.
    if (!origin) return;
    const timeoutMs = page.defaultTimeoutMs;
    // An isolated context (sdk.newContext()) keeps permissions of its own.
    const info = await page.session.send('Target.getTargetInfo', {}, { timeoutMs }).catch(() => undefined);
    // Best effort: a browser that refuses it (an extension's chrome.debugger) may have given it already.
    await page.session
      .send(
        'Browser.grantPermissions',
        { origin, permissions: [...PERMISSIONS], browserContextId: info?.targetInfo.browserContextId },
        { timeoutMs },
      )
      .catch(() => undefined);
  }

  /** Runs a clipboard call in the main frame's isolated world (page scripts cannot stand in its way), as if the user had asked. */
  async #run(page: Page, method: string, expression: string): Promise<unknown> {
    const timeoutMs = page.defaultTimeoutMs;
    const world = await page.mainFrame().waitForWorld('isolated', timeoutMs);
    const response = await world.session.send(
      'Runtime.evaluate',
      { expression, contextId: world.contextId, awaitPromise: true, returnByValue: true, userGesture: true },
      { timeoutMs },
    );
    const details = response.exceptionDetails;
    if (details) {
      const why = (String(details.exception?.description ?? details.text).split('\n')[0] ?? '').replace(/\.$/, '');
      throw new SdkEvalError(`clipboard.${method}(): Chrome refused the clipboard to ${page.url() || 'the page'}: ${why}. ${remedy(why)}`);
    }
    return response.result.value;
  }
}

/** What to do about Chrome's refusal, by its words. */
function remedy(why: string): string {
  // navigator.clipboard is missing outside secure contexts (about:blank, plain http elsewhere than this machine).
  if (/^TypeError/.test(why))
    return 'Chrome gives the clipboard only to secure pages (https, or http on localhost): go to one first (page.goto()).';
  // The browser did not take Browser.grantPermissions from this client (the grant is best effort).
  if (/permission/i.test(why))
    return "The browser refused to grant the page the clipboard permission: allow it for the site in the browser's settings.";
  return 'The page needs focus: keep other tabs and windows from taking it meanwhile.';
}
