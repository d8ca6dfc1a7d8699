// Carries out one action (an element's XPath, a method and its arguments) with real input.

import { ElementNotActionableError, InvalidOptionError, TimeoutError } from '../errors.js';
import {
  clickElement,
  fillElement,
  hoverElement,
  pressOnElement,
  scrollElement,
  selectOptionOf,
  typeIntoElement,
} from '../driver/elementActions.js';
import { parseKeys } from '../driver/input.js';
import { releaseElement, resolveSelector } from '../driver/locator.js';
import { NetworkTracker } from '../driver/network.js';
import type { Page } from '../driver/page.js';
import { watchedAction } from '../driver/policy.js';
import type { ActionInput } from '../types.js';
import { beforeDeadline, BUSY_HINT, withDeadline } from '../util/time.js';

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

/** Methods whose first argument is required, with what it is. */
const NEEDS_ARGUMENT: Partial<Record<ActMethod, string>> = {
  fill: 'the text to fill in, such as ["hello"]',
  type: 'the text to type, such as ["hello"]',
  press: 'a key or chord, such as ["Enter"] or ["Control+A"]',
  selectOption: 'the option to pick, such as ["Large"]',
  selectOptionFromDropdown: 'the option to pick, such as ["Large"]',
};

const PLACEHOLDER = /%[A-Za-z0-9_]+%/;

function unknownMethod(method: unknown): InvalidOptionError {
  const shown = typeof method === 'string' ? JSON.stringify(method.slice(0, 40)) : kindOf(method);
  return new InvalidOptionError(`The action's \`method\` must be one of ${METHODS.join(', ')}; got ${shown}.`);
}

/**
 * Checks an action given to act(action) before anything reaches the page: its fields are the
 * caller's, so a mistake in them is InvalidOptionError naming the field. Argument values are not
 * repeated in the messages: they may be secrets.
 */
export function checkAction(action: unknown): asserts action is ActionInput {
  const given = action as ActionInput | null | undefined;
  if (!given || typeof given !== 'object' || typeof given.selector !== 'string' || !given.selector.trim()) {
    throw new InvalidOptionError('act() takes an instruction string or an action from observe() ({ selector, method, arguments }).');
  }
  const method = given.method ?? 'click';
  if (typeof method !== 'string' || !isMethod(method)) throw unknownMethod(method);
  const args: unknown = given.arguments ?? [];
  if (!Array.isArray(args)) {
    throw new InvalidOptionError(`The action's \`arguments\` must be an array of strings, such as ["hello"]; got ${kindOf(args)}.`);
  }
  const wrong = args.findIndex((arg) => typeof arg !== 'string');
  if (wrong !== -1) {
    throw new InvalidOptionError(`The action's \`arguments\` must all be strings; arguments[${wrong}] is ${kindOf(args[wrong])}.`);
  }
  const needs = NEEDS_ARGUMENT[method];
  if (needs && (args.length === 0 || (method === 'press' && !(args[0] as string).trim()))) {
    throw new InvalidOptionError(`${method} needs \`arguments\` with ${needs}; the action has ${args.length ? 'an empty one' : 'none'}.`);
  }
  // A %placeholder% is only known once the variables are filled in; perform() checks it then.
  const first = args[0] as string | undefined;
  if (first === undefined || PLACEHOLDER.test(first)) return;
  if (method === 'press') parseKeys(first);
  if (method === 'scrollTo' && !Number.isFinite(Number.parseFloat(first))) {
    throw new InvalidOptionError('scrollTo takes `arguments` with how far down to scroll, such as ["50%"].');
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Performs the action; element and input failures surface as ElementNotFoundError /
 * ElementNotActionableError. Under a domainPolicy, a navigation of the page or a popup that the
 * action started and the policy refused is a DomainPolicyError naming the host.
 */
export async function perform(page: Page, action: Action, timeoutMs: number): Promise<void> {
  const method = action.method;
  if (!isMethod(method)) throw unknownMethod(method);
  // An unknown key is known before the element is focused: nothing happens to the page.
  if (method === 'press') parseKeys(argument(action.arguments ?? [], 0, method));
  // One deadline for the whole action. A busy page answers each command only once the tasks queued
  // before it have run, so each step is given what is left of it, not the whole again; and the
  // action ends on time even while a step waits on the page (see docs/errors.md).
  const until = Date.now() + timeoutMs;
  const left = () => Math.max(1, until - Date.now());
  const what = `The action ${method}`;
  await withDeadline(
    watchedAction(page, timeoutMs, () => performMethod(page, method, action, left)).catch((error: unknown) => {
      // A step given what was left ran out with the deadline, maybe a moment before its timer: the
      // action timed out, and says so as its own deadline would.
      if (error instanceof TimeoutError) beforeDeadline(until - 1, timeoutMs, what);
      throw error;
    }),
    timeoutMs,
    what,
    BUSY_HINT,
  );
}

async function performMethod(page: Page, method: ActMethod, action: Action, left: () => number): Promise<void> {
  const args = action.arguments ?? [];
  NetworkTracker.for(page).noteAction();
  const element = await resolveSelector(page, action.selector, left());
  const timeoutMs = left();
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
    releaseElement(element);
  }
}

function argument(args: string[], index: number, method: string): string {
  const value = args[index];
  // The values are not repeated: a filled-in variable may be a secret.
  if (typeof value !== 'string') throw new ElementNotActionableError(`${method} needs an argument (it got ${args.length})`);
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
