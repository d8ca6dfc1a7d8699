// An id of the page text (`ref=…`, refs.ts) as an absolute XPath, as the page is now: for a hosted
// session, whose service resolves selectors in a world of its own that has none of our ids.

import { engineCall, engineCallOnNode } from './engineCall.js';
import { SdkIframeError } from '../errors.js';
import { releaseElement, resolveSelector, type LocatorPage } from './locator.js';

export async function xpathOfRef(page: LocatorPage, selector: string, timeoutMs: number): Promise<string> {
  const element = await resolveSelector(page, selector, timeoutMs);
  try {
    let path = await engineCall<string>(element.frame, 'xpathOf', [{ objectId: element.objectId }], timeoutMs);
    for (let frame = element.frame; frame.parent; frame = frame.parent) {
      const owner = await frame.ownerElementId(timeoutMs);
      if (owner === null) throw new SdkIframeError(`The frame of ${selector} is no longer in the page; read the page again.`);
      path = (await engineCallOnNode<string>(frame.parent, 'xpathOf', owner, [], timeoutMs)) + path;
    }
    return `xpath=${path}`;
  } finally {
    releaseElement(element);
  }
}
