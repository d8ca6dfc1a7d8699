// Carries out one action (an element's XPath, a method and its arguments) with real input.

import { ElementNotActionableError, InvalidOptionError } from '../errors.js';
import {
  clickElement,
  fillElement,
  hoverElement,
  pressOnElement,
  scrollElement,
  selectOptionOf,
  typeIntoElement,
} from '../driver/elementActions.js';
import { resolveSelector } from '../driver/locator.js';
import { NetworkTracker } from '../driver/network.js';
import type { Page } from '../driver/page.js';

export const METHODS = [
  'click',
  'doubleClick',
  'hover',
  'fill',
  'type',
  'press',
  'selectOption',
  'selectOptionFromDropdown',
  'scrollTo',
  'scrollIntoView',
  'nextChunk',
  'prevChunk',
] as const;

export type ActMethod = (typeof METHODS)[number];

/** What each method does with its arguments, for the model. */
export const METHOD_HELP = [
  'click, doubleClick, hover: no arguments',
  'fill: ["text"] replaces the field\'s value',
  'type: ["text"] types it key by key',
  'press: ["Enter"] a key or chord such as Tab, Escape, ArrowDown, Control+A',
  'selectOption: ["option text"] in a select',
  'scrollTo: ["50%"] how far down the element (or page) to scroll',
  'scrollIntoView, nextChunk, prevChunk: no arguments (next/prev chunk scroll by one screen)',
].join('\n');

export interface Action {
  /** Absolute XPath (`xpath=/html/...`) or CSS, through iframes and shadow roots. */
  selector: string;
  method: string;
  arguments: string[];
}

function isMethod(method: string): method is ActMethod {
  return (METHODS as readonly string[]).includes(method);
}

/** Performs the action; element and input failures surface as ElementNotFoundError / ElementNotActionableError. */
export async function perform(page: Page, action: Action, timeoutMs: number): Promise<void> {
  const method = action.method;
  if (!isMethod(method)) {
    throw new InvalidOptionError(`Unknown action method "${method}"; one of: ${METHODS.join(', ')}.`);
  }
  const args = action.arguments ?? [];
  NetworkTracker.for(page).noteAction();
  const element = await resolveSelector(page, action.selector, timeoutMs);
  const release = () => void element.world.session.sendQuiet('Runtime.releaseObject', { objectId: element.objectId });
  try {
    switch (method) {
      case 'click':
        return await clickElement(page, element, timeoutMs);
      case 'doubleClick':
        return await clickElement(page, element, timeoutMs, 2);
      case 'hover':
        return await hoverElement(page, element, timeoutMs);
      case 'fill':
        return await fillElement(page, element, argument(args, 0, method), timeoutMs);
      case 'type':
        return await typeIntoElement(page, element, argument(args, 0, method), timeoutMs);
      case 'press':
        return await pressOnElement(page, element, argument(args, 0, method), timeoutMs);
      case 'selectOption':
      case 'selectOptionFromDropdown':
        await selectOptionOf(element, argument(args, 0, method), timeoutMs);
        return;
      case 'scrollTo':
        return await scrollElement(element, { to: fraction(args[0]) }, timeoutMs);
      case 'scrollIntoView':
        return await scrollElement(element, 'intoView', timeoutMs);
      case 'nextChunk':
      case 'prevChunk':
        return await scrollElement(element, { by: method === 'nextChunk' ? 'next' : 'prev' }, timeoutMs);
    }
  } finally {
    release();
  }
}

function argument(args: string[], index: number, method: string): string {
  const value = args[index];
  if (typeof value !== 'string') throw new ElementNotActionableError(`${method} needs an argument (got ${JSON.stringify(args)})`);
  return value;
}

/** "50%", "50", "0.5" → 0.5; clamped to the page. */
function fraction(raw: string | undefined): number {
  const text = String(raw ?? '0').trim();
  let value = Number.parseFloat(text);
  if (!Number.isFinite(value)) throw new ElementNotActionableError(`scrollTo needs a percentage such as "50%", not ${JSON.stringify(raw)}`);
  if (text.endsWith('%') || value > 1) value /= 100;
  return Math.min(1, Math.max(0, value));
}
