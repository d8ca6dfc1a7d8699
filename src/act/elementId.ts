// act({ elementId }): an id of the page's latest read (its page text, any view) stands for the
// element it named there, as an XPath through frames and shadow roots; no model is asked.

import type { Page } from '../driver/page.js';
import { ElementIdNotFoundError, InvalidOptionError } from '../errors.js';
import { idKey, shownId } from '../snapshot/ids.js';
import { latestRead } from '../snapshot/latest.js';
import type { ActionInput, ElementAction } from '../types.js';

export function isElementAction(value: unknown): value is ElementAction {
  return typeof value === 'object' && value !== null && 'elementId' in value && !('selector' in value);
}

/** The action on the element behind the id; ElementIdNotFoundError when the latest read has no such element now. */
export async function actionOfId(page: Page, action: ElementAction): Promise<ActionInput> {
  const { elementId, ...rest } = action;
  if (typeof elementId !== 'string' || !/^\d+(-\d+)?$/.test(idKey(elementId))) {
    throw new InvalidOptionError(`\`elementId\` must be an id of the page text, such as "12" or "2-7" (with or without brackets), not ${JSON.stringify(elementId)}.`);
  }
  const id = shownId(elementId);
  const read = latestRead(page);
  if (!read) {
    throw new ElementIdNotFoundError(`There is no read of this page to find [${id}] in: read it first (extract(), or page_text over MCP), then act on an id from that read.`, `[${id}]`);
  }
  const xpath = await read.xpathOf(id);
  if (!xpath) {
    throw new ElementIdNotFoundError(
      `[${id}] is not an element of this page's latest read, or it is gone since (the page was read again, or its document changed). Read the page again and use an id from that read.`,
      `[${id}]`,
    );
  }
  return { ...rest, selector: `xpath=${xpath}` };
}
