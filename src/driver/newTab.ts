// Opening a tab for context.newPage(): created on its URL, or blank first when there are extra
// headers (Chrome makes a new tab's first request before its session can be given them).

import type { CdpSession } from '../cdp/session.js';
import { SdkError } from '../errors.js';
import { withDeadline } from '../util/time.js';
import type { ContextOptions } from './contextOptions.js';
import type { SessionExtras } from './sessionExtras.js';

/** What newTab needs of the page it waits for. */
interface TabPage {
  readonly session: CdpSession;
}

/** Creates the tab and resolves with its page once `pageOf` has it ready. */
export async function openTab<P extends TabPage>(
  root: CdpSession,
  url: string,
  options: ContextOptions,
  extras: SessionExtras,
  pageOf: (targetId: string) => Promise<P | undefined>,
): Promise<P> {
  const viaBlank = Object.keys(extras.headers ?? {}).length > 0 && url !== 'about:blank';
  const { targetId } = await root.send('Target.createTarget', {
    url: viaBlank ? 'about:blank' : url,
    browserContextId: options.browserContextId,
  });
  const page = await withDeadline(pageOf(targetId), options.timeoutMs, 'Opening a new page');
  if (!page) throw new SdkError(`The new page (${targetId}) closed before it was ready.`);
  // As a tab opened on `url`: a URL that fails shows Chrome's error page, and the load goes on.
  if (viaBlank) await page.session.send('Page.navigate', { url });
  return page;
}
