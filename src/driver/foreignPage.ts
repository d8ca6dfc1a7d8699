// A page object of Playwright or Puppeteer, connected to our browser through sdk.connectURL(),
// stands for one of our pages: the one with the same main frame. Nothing of either library is
// imported; the object is asked for a DevTools session through its public API.

import { InvalidOptionError } from '../errors.js';
import type { Context } from './context.js';
import type { Page } from './page.js';

interface CdpSessionLike {
  send(method: string, params?: unknown): Promise<unknown>;
  detach(): Promise<void>;
}

type Library = 'Playwright' | 'Puppeteer';

function libraryOf(page: object): Library | undefined {
  const record = page as Record<string, unknown>;
  // Playwright: page.context().newCDPSession(page); Puppeteer: page.createCDPSession().
  if (typeof record.context === 'function' && typeof record.mainFrame === 'function' && typeof record.route === 'function')
    return 'Playwright';
  if (typeof record.createCDPSession === 'function' && typeof record.mainFrame === 'function') return 'Puppeteer';
  return undefined;
}

async function sessionFor(page: object, library: Library): Promise<CdpSessionLike> {
  if (library === 'Playwright') {
    const context = (page as { context(): { newCDPSession(page: object): Promise<CdpSessionLike> } }).context();
    return context.newCDPSession(page);
  }
  return (page as { createCDPSession(): Promise<CdpSessionLike> }).createCDPSession();
}

/** Our page for a Playwright or Puppeteer page, or undefined when `page` is neither. */
export async function matchForeignPage(
  context: Context,
  page: unknown,
  timeoutMs: number,
  connectUrl: string | undefined,
): Promise<Page | undefined> {
  if (!page || typeof page !== 'object') return undefined;
  const library = libraryOf(page);
  if (!library) return undefined;
  let frameId: string;
  const session = await sessionFor(page, library);
  try {
    const { frameTree } = (await session.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
    frameId = frameTree.frame.id;
  } finally {
    await session.detach().catch(() => undefined);
  }
  // A page the other library just opened may still be on its way to us; one of another browser never comes.
  const match = await context.pageOfTarget(frameId, Math.min(timeoutMs, 5000));
  if (match) return match;
  throw new InvalidOptionError(
    `This ${library} page is not a page of this Sdk's browser (its main frame ${frameId} is none of ours). ` +
      `Connect ${library} to this browser with ${library === 'Playwright' ? 'chromium.connectOverCDP(sdk.connectURL())' : 'puppeteer.connect({ browserWSEndpoint: sdk.connectURL() })'}` +
      (connectUrl ? '' : ' (available once init() has resolved)') +
      '.',
  );
}
