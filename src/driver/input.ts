// Real input over the DevTools Protocol: mouse events at an element's visible centre and key
// events, all sent to the page's top-level session, which routes them as a user's would (into
// out-of-process iframes too).

import { ElementNotActionableError, InvalidOptionError, UnknownKeyError } from '../errors.js';
import type { CdpSession } from '../cdp/session.js';
import type { Frame } from './frame.js';
import type { ResolvedElement } from './locator.js';
import type { Page } from './page.js';

export interface Point {
  x: number;
  y: number;
}

/**
 * Scrolls the element into view and returns its visible centre in the top page's coordinates.
 * In the top page's own process that is one measurement: the renderer hit-tests its own DOM. Inside
 * an out-of-process iframe the browser routes the event by what the frames last drew, and the scroll
 * reaches the pages above asynchronously, so there the point is measured until two measurements an
 * animation frame apart agree.
 */
export async function clickablePoint(element: ResolvedElement, timeoutMs: number): Promise<Point> {
  const owners = await scrollIntoView(element, timeoutMs);
  if (!owners.length) return measure(element, owners, timeoutMs);
  let last: Point | undefined;
  for (let attempt = 0; attempt < 10; attempt++) {
    // The browser routes a mouse event by the frames' last composited frames, so let them draw.
    await nextFrames(element, timeoutMs);
    const point = await measure(element, owners, timeoutMs);
    if (last && Math.abs(last.x - point.x) < 0.5 && Math.abs(last.y - point.y) < 0.5) return point;
    last = point;
  }
  return last!;
}

interface Owner {
  session: CdpSession;
  backendNodeId: number;
}

/** Scrolls the element into view in its frame, then its frame in each out-of-process frame above; resolves with their owners. */
async function scrollIntoView(element: ResolvedElement, timeoutMs: number): Promise<Owner[]> {
  await element.world.session.send('DOM.scrollIntoViewIfNeeded', { objectId: element.objectId }, { timeoutMs }).catch((error: Error) => {
    throw new ElementNotActionableError(`it is not rendered (${error.message})`);
  });
  const owners = await ownerChain(element.frame, timeoutMs);
  for (const owner of owners) await owner.session.sendQuiet('DOM.scrollIntoViewIfNeeded', { backendNodeId: owner.backendNodeId });
  return owners;
}

/** The <iframe> elements that hold the element's out-of-process frames, innermost first. */
async function ownerChain(frame: Frame, timeoutMs: number): Promise<Owner[]> {
  const owners: Owner[] = [];
  for (let current: Frame | null = frame; current?.parent; current = current.parent) {
    if (!current.isOutOfProcess()) continue;
    const backendNodeId = await current.ownerElementId(timeoutMs);
    if (backendNodeId !== null) owners.push({ session: current.parent.session, backendNodeId });
  }
  return owners;
}

/**
 * DOM.getContentQuads answers in the viewport of the frame's local root: the top page for
 * in-process iframes, the iframe itself for an out-of-process one, whose <iframe> content box
 * offsets are added, hop by hop.
 */
async function measure(element: ResolvedElement, owners: Owner[], timeoutMs: number): Promise<Point> {
  const box = await measureBox(element, owners, timeoutMs);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

async function measureBox(element: ResolvedElement, owners: Owner[], timeoutMs: number): Promise<Box> {
  const { quads } = await element.world.session.send('DOM.getContentQuads', { objectId: element.objectId }, { timeoutMs }).catch((error: Error) => {
    throw new ElementNotActionableError(`it has no layout box (${error.message})`);
  });
  const box = quads.map(toBox).find((each) => each.width >= 1 && each.height >= 1);
  if (!box) throw new ElementNotActionableError('it has no visible size');
  for (const owner of owners) {
    const { model } = await owner.session.send('DOM.getBoxModel', { backendNodeId: owner.backendNodeId }, { timeoutMs });
    box.x += model.content[0] ?? 0;
    box.y += model.content[1] ?? 0;
  }
  return box;
}

/**
 * Scrolls the element into view and returns its box (its first fragment's) in the top page's
 * viewport: what a screenshot of the element clips to. Measured once the frames drew, as above.
 */
export async function visibleBox(element: ResolvedElement, timeoutMs: number): Promise<Box> {
  const owners = await scrollIntoView(element, timeoutMs);
  await nextFrames(element, timeoutMs);
  return measureBox(element, owners, timeoutMs);
}

/** Waits for two animation frames in the element's frame and in every frame above it. */
async function nextFrames(element: ResolvedElement, timeoutMs: number): Promise<void> {
  const waits: Array<Promise<unknown>> = [];
  for (let frame: Frame | null = element.frame; frame; frame = frame.parent) {
    const target = frame;
    waits.push(
      target
        .waitForWorld('isolated', timeoutMs)
        .then((world) =>
          world.session.send(
            'Runtime.evaluate',
            {
              expression: 'new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(true))))',
              contextId: world.contextId,
              awaitPromise: true,
            },
            { timeoutMs },
          ),
        )
        .catch(() => undefined),
    );
  }
  await Promise.all(waits);
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

function toBox(quad: number[]): Box {
  const xs = [quad[0]!, quad[2]!, quad[4]!, quad[6]!];
  const ys = [quad[1]!, quad[3]!, quad[5]!, quad[7]!];
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

export type MouseButton = 'left' | 'right' | 'middle';

export async function click(page: Page, point: Point, options: { clickCount?: number; button?: MouseButton; timeoutMs: number }): Promise<void> {
  const session = page.session;
  const button = options.button ?? 'left';
  const clicks = options.clickCount ?? 1;
  const send = (type: 'mouseMoved' | 'mousePressed' | 'mouseReleased', clickCount: number) =>
    session.send(
      'Input.dispatchMouseEvent',
      { type, x: point.x, y: point.y, button: type === 'mouseMoved' ? 'none' : button, clickCount, buttons: type === 'mousePressed' ? 1 : 0 },
      { timeoutMs: options.timeoutMs },
    );
  // A session runs its commands in order, so the events can go out together: one round trip.
  // A double click is two press/release pairs, the second carrying clickCount 2, as a real mouse does.
  const events = [send('mouseMoved', 0)];
  for (let count = 1; count <= clicks; count++) events.push(send('mousePressed', count), send('mouseReleased', count));
  await Promise.all(events);
}

export async function hover(page: Page, point: Point, timeoutMs: number): Promise<void> {
  await page.session.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: point.x, y: point.y }, { timeoutMs });
}

export interface KeyDefinition {
  key: string;
  code: string;
  keyCode: number;
  text?: string;
}

/** A key's definition; `code` is the key's name unless given. */
function named(key: string, keyCode: number, code = key, text?: string): KeyDefinition {
  return text === undefined ? { key, code, keyCode } : { key, code, keyCode, text };
}

const NAMED_KEYS: Record<string, KeyDefinition> = {
  Enter: named('Enter', 13, 'Enter', '\r'),
  Tab: named('Tab', 9),
  Escape: named('Escape', 27),
  Backspace: named('Backspace', 8),
  Delete: named('Delete', 46),
  Space: named(' ', 32, 'Space', ' '),
  ArrowUp: named('ArrowUp', 38),
  ArrowDown: named('ArrowDown', 40),
  ArrowLeft: named('ArrowLeft', 37),
  ArrowRight: named('ArrowRight', 39),
  Home: named('Home', 36),
  End: named('End', 35),
  PageUp: named('PageUp', 33),
  PageDown: named('PageDown', 34),
  Shift: named('Shift', 16, 'ShiftLeft'),
  Control: named('Control', 17, 'ControlLeft'),
  Alt: named('Alt', 18, 'AltLeft'),
  Meta: named('Meta', 91, 'MetaLeft'),
};

const ALIASES: Record<string, string> = {
  return: 'Enter',
  esc: 'Escape',
  ctrl: 'Control',
  cmd: 'Meta',
  command: 'Meta',
  option: 'Alt',
  up: 'ArrowUp',
  down: 'ArrowDown',
  left: 'ArrowLeft',
  right: 'ArrowRight',
  ' ': 'Space',
};

const MODIFIER_BITS: Record<string, number> = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };

function keyDefinition(name: string): KeyDefinition {
  const known = NAMED_KEYS[name] ?? NAMED_KEYS[ALIASES[name.toLowerCase()] ?? ''] ??
    Object.values(NAMED_KEYS).find((key) => key.key.toLowerCase() === name.toLowerCase());
  if (known) return known;
  if ([...name].length === 1) {
    const upper = name.toUpperCase();
    const code = /[a-z]/i.test(name) ? `Key${upper}` : /\d/.test(name) ? `Digit${name}` : '';
    return { key: name, code, keyCode: /[a-z\d]/i.test(name) ? upper.charCodeAt(0) : 0, text: name };
  }
  throw new UnknownKeyError(
    `Unknown key "${name}". Use a single character, a key name (${Object.keys(NAMED_KEYS).join(', ')}) or a chord such as "Control+A".`,
    name,
  );
}

/**
 * The keys of a key or chord ("Enter", "Shift+Tab", "Control+A"), checked before anything is sent:
 * UnknownKeyError names a key that does not exist.
 */
export function parseKeys(keys: string): KeyDefinition[] {
  const parts = keys === '+' ? ['+'] : keys.split('+').map((part) => part.trim()).filter(Boolean);
  if (!parts.length) throw new InvalidOptionError('press needs a key, such as "Enter".');
  return parts.map(keyDefinition);
}

/** Presses a key or a chord ("Enter", "Shift+Tab", "Control+A") in whatever has focus. */
export async function press(page: Page, keys: string, timeoutMs: number): Promise<void> {
  const definitions = parseKeys(keys);
  let modifiers = 0;
  const session = page.session;
  for (const definition of definitions) {
    modifiers |= MODIFIER_BITS[definition.key] ?? 0;
    // With Control, Alt or Meta held a key types nothing; it is a shortcut.
    const text = modifiers & ~8 ? undefined : definition.text;
    await session.send(
      'Input.dispatchKeyEvent',
      {
        type: text ? 'keyDown' : 'rawKeyDown',
        key: definition.key,
        code: definition.code,
        windowsVirtualKeyCode: definition.keyCode,
        modifiers,
        ...(text ? { text, unmodifiedText: text } : {}),
      },
      { timeoutMs },
    );
  }
  for (const definition of definitions.reverse()) {
    await session.send(
      'Input.dispatchKeyEvent',
      { type: 'keyUp', key: definition.key, code: definition.code, windowsVirtualKeyCode: definition.keyCode, modifiers },
      { timeoutMs },
    );
    modifiers &= ~(MODIFIER_BITS[definition.key] ?? 0);
  }
}

/** Types text key by key into whatever has focus; characters without a key are inserted as text. */
export async function type(page: Page, text: string, timeoutMs: number): Promise<void> {
  for (const char of text) {
    if (char === '\n') await press(page, 'Enter', timeoutMs);
    else if (/^[\x20-\x7e]$/.test(char)) await press(page, char === ' ' ? 'Space' : char, timeoutMs);
    else await page.session.send('Input.insertText', { text: char }, { timeoutMs });
  }
}

/** Inserts text at the caret in one go, as a paste or an input method does (fires `input`). */
export async function insertText(page: Page, text: string, timeoutMs: number): Promise<void> {
  await page.session.send('Input.insertText', { text }, { timeoutMs });
}
