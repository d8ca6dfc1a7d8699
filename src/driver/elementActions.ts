// Actions on one resolved element: the input goes through real mouse and key events (input.ts);
// what has no input event of its own (picking an <option>, scrolling a box to a fraction) runs as
// a small function on the element in our isolated world, firing the events a user's action fires.

import { ElementNotActionableError } from '../errors.js';
import { callFunction } from './evaluate.js';
import { clickablePoint, exclusive, insertText, press, typeChar, type MouseButton } from './input.js';
import { mouse } from './pageInput.js';
import { beforeDeadline, sleep } from '../util/time.js';
import type { ResolvedElement } from './locator.js';
import type { Page } from './page.js';
import { clickChecked, onEngine } from './pointerCheck.js';

function onElement<Result>(
  element: ResolvedElement,
  fn: (...args: never[]) => unknown,
  args: unknown[],
  timeoutMs: number,
  what: string,
): Promise<Result> {
  return callFunction<Result>(
    element.world.session,
    { objectId: element.objectId },
    fn,
    [{ objectId: element.objectId }, ...args.map((value) => ({ value }))],
    { timeoutMs, what, userGesture: true },
  );
}

async function assertActionable(element: ResolvedElement, timeoutMs: number): Promise<void> {
  const { why } = await onEngine<{ why: string }>(element, 'aim', [], timeoutMs);
  if (why) throw new ElementNotActionableError(why);
}

/** Clicks once the element holds still and the press reaches it (see pointerCheck.ts). */
export async function clickElement(
  page: Page,
  element: ResolvedElement,
  timeoutMs: number,
  clickCount = 1,
  button: MouseButton = 'left',
): Promise<void> {
  await clickChecked(page, element, timeoutMs, clickCount, button);
}

/** Moves the pointer to the element's visible centre, as page.hover(x, y) does (pageInput.ts). */
export async function hoverElement(page: Page, element: ResolvedElement, timeoutMs: number): Promise<void> {
  const { x, y } = await clickablePoint(element, timeoutMs);
  await mouse(page, [{ type: 'mouseMoved', x, y, button: 'none' }], timeoutMs);
}

async function focus(element: ResolvedElement, timeoutMs: number, selectAll: boolean): Promise<void> {
  await assertActionable(element, timeoutMs);
  const problem = await onElement<string>(
    element,
    (node: HTMLElement, select: boolean) => {
      node.focus();
      const root = node.getRootNode() as Document | ShadowRoot;
      if (root.activeElement !== node && !node.contains(root.activeElement)) return 'it cannot take the focus';
      if (!select) return '';
      if (node instanceof HTMLInputElement || node instanceof HTMLTextAreaElement) {
        try {
          node.select();
        } catch {
          // Some input types have no selection; fill sets their value directly instead.
        }
      } else if (node.isContentEditable) {
        const range = document.createRange();
        range.selectNodeContents(node);
        const selection = window.getSelection();
        selection?.removeAllRanges();
        selection?.addRange(range);
      }
      return '';
    },
    [selectAll],
    timeoutMs,
    'focusing the element',
  );
  if (problem) throw new ElementNotActionableError(problem);
}

/** Replaces the field's value with `text`, firing input and change as typing and leaving would. */
export function fillElement(page: Page, element: ResolvedElement, text: string, timeoutMs: number): Promise<void> {
  return exclusive(page, () => fill(page, element, text, timeoutMs));
}

async function fill(page: Page, element: ResolvedElement, text: string, timeoutMs: number): Promise<void> {
  const kind = await onElement<string>(
    element,
    (node: Element) =>
      node instanceof HTMLInputElement || node instanceof HTMLTextAreaElement
        ? 'field'
        : (node as HTMLElement).isContentEditable
          ? 'editable'
          : node.tagName.toLowerCase(),
    [],
    timeoutMs,
    'inspecting the element',
  );
  if (kind !== 'field' && kind !== 'editable') throw new ElementNotActionableError(`it is a <${kind}>, not a text field`);
  await focus(element, timeoutMs, true);
  if (text) await insertText(page, text, timeoutMs);
  await onElement(
    element,
    (node: HTMLInputElement, value: string) => {
      // Types with no caret (number, date, ...) ignore inserted text: set them as a script would.
      if ('value' in node && node.value !== value && !(node as unknown as HTMLElement).isContentEditable) {
        const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(node), 'value')?.set;
        setter ? setter.call(node, value) : (node.value = value);
        node.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      }
      node.dispatchEvent(new Event('change', { bubbles: true }));
    },
    [text],
    timeoutMs,
    'finishing the fill',
  );
}

/**
 * Focuses the element and types `text` key by key, `delayMs` between keys. A field the page takes
 * out of the document meanwhile (a framework that re-renders it as a new element) is
 * ElementNotActionableError: typing stops, since what follows would go elsewhere or nowhere.
 */
export function typeIntoElement(page: Page, element: ResolvedElement, text: string, timeoutMs: number, delayMs = 0): Promise<void> {
  const until = Date.now() + timeoutMs;
  return exclusive(page, async () => {
    await focus(element, timeoutMs, false);
    const chars = [...text];
    for (const [index, char] of chars.entries()) {
      if (index && delayMs) await sleep(delayMs);
      // No key goes after the deadline, which has then been reported.
      beforeDeadline(until, timeoutMs, `Typing (${index} of ${chars.length} typed)`);
      await typeChar(page, char, timeoutMs);
      if (!(await onElement<boolean>(element, (node: Node) => node.isConnected, [], timeoutMs, 'checking the field'))) {
        throw new ElementNotActionableError(
          `the page replaced it after ${index + 1} of ${chars.length} characters; type into the new field`,
        );
      }
    }
  });
}

/** Focuses the element (when given) and presses a key or chord. */
export function pressOnElement(page: Page, element: ResolvedElement | null, keys: string, timeoutMs: number): Promise<void> {
  return exclusive(page, async () => {
    if (element) await focus(element, timeoutMs, false);
    await press(page, keys, timeoutMs);
  });
}

interface Picked {
  ok: boolean;
  text: string;
  /** When no option fits: how many there are, the first few and the closest to what was asked. */
  count?: number;
  first?: string[];
  closest?: string[];
}

/** Picks the option whose value or text is `choice` in a <select> (the element or the one around it). */
export async function selectOptionOf(element: ResolvedElement, choice: string, timeoutMs: number): Promise<string> {
  const outcome = await onElement<Picked>(
    element,
    (node: Element, wanted: string) => {
      const select = node instanceof HTMLSelectElement ? node : (node.closest('select') ?? node.querySelector('select'));
      if (!select) return { ok: false, text: `it is a <${node.tagName.toLowerCase()}>, not a <select>` };
      if (select.disabled) return { ok: false, text: 'the list is disabled' };
      const norm = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();
      const options = [...select.options];
      const labels = options.map((each) => each.label || each.text);
      const names = labels.map(norm);
      const goal = norm(wanted);
      let at = options.findIndex((each) => each.value === wanted);
      if (at < 0) at = names.indexOf(goal);
      if (at < 0) at = names.findIndex((name) => name.includes(goal));
      const option = options[at];
      if (!option) {
        // A list can hold thousands: the message names a few, the count, and the closest (the
        // longest start shared with what was asked), never the whole list.
        const shared = (name: string) => {
          let same = 0;
          while (name[same] && name[same] === goal[same]) same++;
          return same;
        };
        const ranked = names.map((name, i) => [shared(name), i]).sort((a, b) => b[0]! - a[0]! || a[1]! - b[1]!);
        const closest = ranked
          .slice(0, 3)
          .filter(([same]) => same! > 2)
          .map(([, i]) => labels[i]!);
        return { ok: false, text: '', count: options.length, first: labels.slice(0, 5), closest };
      }
      select.value = option.value;
      option.selected = true;
      select.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      select.dispatchEvent(new Event('change', { bubbles: true }));
      return { ok: true, text: option.label || option.text };
    },
    [choice],
    timeoutMs,
    'selecting an option',
  );
  if (!outcome.ok) throw new ElementNotActionableError(outcome.count === undefined ? outcome.text : noSuchOption(choice, outcome));
  return outcome.text;
}

const quoted = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);

function noSuchOption(choice: string, { count = 0, first = [], closest = [] }: Picked): string {
  const near = closest.filter((name) => !first.includes(name)).map(quoted);
  return (
    `it has no option ${quoted(choice)} among its ${count.toLocaleString('en-US')} (${first.map(quoted).join(', ')}` +
    `${count > first.length ? `, … and ${(count - first.length).toLocaleString('en-US')} more` : ''})` +
    `${near.length ? `; closest: ${near.join(', ')}` : ''}. Name an option by its text or value`
  );
}

export type ScrollHow = { to: number } | { by: 'next' | 'prev' } | 'intoView';

/**
 * Scrolls the element itself when it scrolls, else the document: to a fraction of the way down,
 * a viewport (or box) height up or down, or the element into the middle of the view.
 */
export async function scrollElement(element: ResolvedElement, how: ScrollHow, timeoutMs: number): Promise<void> {
  await onElement(
    element,
    (node: Element, spec: ScrollHow) => {
      if (spec === 'intoView') return node.scrollIntoView({ block: 'center', inline: 'nearest' });
      const style = getComputedStyle(node);
      const scrolls = node.scrollHeight > node.clientHeight + 1 && /(auto|scroll|overlay)/.test(style.overflowY);
      const box = scrolls ? node : (document.scrollingElement ?? document.documentElement);
      const view = scrolls ? node.clientHeight : window.innerHeight;
      if ('to' in spec) box.scrollTo({ top: (box.scrollHeight - view) * spec.to, behavior: 'instant' as ScrollBehavior });
      else box.scrollBy({ top: spec.by === 'next' ? view : -view, behavior: 'instant' as ScrollBehavior });
    },
    [how],
    timeoutMs,
    'scrolling',
  );
}
