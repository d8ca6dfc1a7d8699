// Which page a call works on: the one it names (ours, or a Playwright or Puppeteer page matched to
// ours through the entry's foreignPage), else the active one; anything else is refused by name.

import type { Context } from '../driver/context.js';
import type { matchForeignPage } from '../driver/foreignPage.js';
import { Page } from '../driver/page.js';
import { InvalidOptionError, SdkStateError } from '../errors.js';

export interface PageOfCallOptions {
  /** The entry's matcher of foreign pages; absent where there are none (the extension). */
  foreignPage?: typeof matchForeignPage;
  timeoutMs: number;
  /** connectURL()'s bridge, through which foreign pages reach this browser. */
  bridgeUrl?: string;
}

export async function pageOfCall(context: Context, page: unknown, options: PageOfCallOptions): Promise<Page> {
  if (page !== undefined && !(page instanceof Page)) {
    const matched = await options.foreignPage?.(context, page, options.timeoutMs, options.bridgeUrl);
    if (matched) return matched;
  }
  if (page === undefined) {
    const active = context.activePage();
    if (!active) throw new SdkStateError('There is no open page; open one with sdk.context.newPage().');
    return active;
  }
  if (!(page instanceof Page)) {
    throw new InvalidOptionError(
      '`page` must be a page of this Sdk (sdk.context.pages(), sdk.context.newPage()), or a Playwright or Puppeteer page connected through sdk.connectURL().',
    );
  }
  if (!context.holds(page)) {
    throw new InvalidOptionError(
      page.isClosed() ? '`page` is closed; open another with sdk.context.newPage().' : '`page` belongs to another Sdk instance.',
    );
  }
  return page;
}
