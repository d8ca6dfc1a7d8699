// act({ elementId }): an id read in the page text (any view, any read of the document) stands for
// its element itself, as the selector `ref=N` / `ref=F-N` that the frame's engine resolves to that
// element (driver/refs.ts, injected/engine/ids.ts); no model is asked, and no XPath stands between.

import { InvalidOptionError } from '../errors.js';
import { idKey, shownId } from '../snapshot/ids.js';
import type { ActionInput, ElementAction } from '../types.js';

export function isElementAction(value: unknown): value is ElementAction {
  return typeof value === 'object' && value !== null && 'elementId' in value && !('selector' in value);
}

/** The action on the element behind the id; performing it is ElementIdNotFoundError when that element is not there. */
export function actionOfId(action: ElementAction): ActionInput {
  const { elementId, ...rest } = action;
  if (typeof elementId !== 'string' || !/^\d+(-\d+)?$/.test(idKey(elementId))) {
    throw new InvalidOptionError(
      `\`elementId\` must be an id of the page text, such as "12" or "2-7" (with or without brackets), not ${JSON.stringify(elementId)}.`,
    );
  }
  return { ...rest, selector: `ref=${shownId(elementId)}` };
}
