// Stagehand's keyboard: page.type(text) sends a key press per character into whatever has focus
// (never inserting text another way), page.keyPress(keys) a key or a chord ("Enter", "Shift+Tab",
// "Cmd+A"). "Cmd", "Command" and "ControlOrMeta" mean Meta where the browser runs on a Mac and
// Control elsewhere, so the same shortcut selects all on either.

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { InvalidOptionError, UnknownKeyError } from '../errors.js';

/** What typing needs of a page (page.ts's Page has it). */
export interface KeyboardPage {
  readonly session: CdpSession;
  readonly defaultTimeoutMs: number;
  assertOpen(what: string): void;
  evaluate<Result>(expression: string): Promise<Result>;
}

interface Key {
  key: string;
  code?: string;
  keyCode?: number;
  text?: string;
}

const named = (key: string, keyCode: number, code = key, text?: string): Key => ({ key, code, keyCode, text });
const NAMED: Record<string, Key> = {
  Enter: named('Enter', 13, 'Enter', '\r'),
  Tab: named('Tab', 9),
  Backspace: named('Backspace', 8),
  Escape: named('Escape', 27),
  Delete: named('Delete', 46),
  Insert: named('Insert', 45),
  ArrowLeft: named('ArrowLeft', 37),
  ArrowUp: named('ArrowUp', 38),
  ArrowRight: named('ArrowRight', 39),
  ArrowDown: named('ArrowDown', 40),
  Home: named('Home', 36),
  End: named('End', 35),
  PageUp: named('PageUp', 33),
  PageDown: named('PageDown', 34),
  CapsLock: named('CapsLock', 20),
  ContextMenu: named('ContextMenu', 93),
  Alt: named('Alt', 18, 'AltLeft'),
  Control: named('Control', 17, 'ControlLeft'),
  Meta: named('Meta', 91, 'MetaLeft'),
  Shift: named('Shift', 16, 'ShiftLeft'),
};
for (let n = 1; n <= 12; n++) NAMED[`F${n}`] = named(`F${n}`, 111 + n);

const ALIASES: Record<string, string> = {
  return: 'Enter',
  esc: 'Escape',
  del: 'Delete',
  ins: 'Insert',
  left: 'ArrowLeft',
  up: 'ArrowUp',
  right: 'ArrowRight',
  down: 'ArrowDown',
  pgup: 'PageUp',
  pgdn: 'PageDown',
  ctrl: 'Control',
  option: 'Alt',
  win: 'Meta',
  windows: 'Meta',
  space: ' ',
  spacebar: ' ',
};
/** Names that mean the platform's shortcut key. */
const PLATFORM_KEY = ['cmd', 'command', 'controlormeta'];
const MODIFIERS: Record<string, number> = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };

// A US keyboard's punctuation: the key each character is on, unshifted then shifted.
const PLAIN = "`-=[]\\;',./";
const SHIFTED = '~_+{}|:"<>?';
const PUNCTUATION_CODES = ['Backquote', 'Minus', 'Equal', 'BracketLeft', 'BracketRight', 'Backslash', 'Semicolon', 'Quote', 'Comma', 'Period', 'Slash'];
const PUNCTUATION_KEYCODES = [192, 189, 187, 219, 221, 220, 186, 222, 188, 190, 191];
const SHIFTED_DIGITS = ')!@#$%^&*(';

/** The key that types `char` (a single character), with the text it types. */
function keyOf(char: string): Key {
  if (char === ' ') return { key: ' ', code: 'Space', keyCode: 32, text: ' ' };
  if (/^[a-z]$/i.test(char)) return { key: char, code: `Key${char.toUpperCase()}`, keyCode: char.toUpperCase().charCodeAt(0), text: char };
  const digit = /^\d$/.test(char) ? char : SHIFTED_DIGITS.includes(char) ? String(SHIFTED_DIGITS.indexOf(char)) : '';
  if (digit) return { key: char, code: `Digit${digit}`, keyCode: 48 + Number(digit), text: char };
  const at = Math.max(PLAIN.indexOf(char), SHIFTED.indexOf(char));
  if (at >= 0) return { key: char, code: PUNCTUATION_CODES[at], keyCode: PUNCTUATION_KEYCODES[at], text: char };
  // Any other character (é, 中, an emoji) types itself; no key of a US keyboard stands for it.
  return { key: char, text: char };
}

type KeyEvent = Protocol.Input.DispatchKeyEventRequest;

function down(key: Key, modifiers: number, text: string | undefined, commands?: string[]): KeyEvent {
  return {
    type: text ? 'keyDown' : 'rawKeyDown',
    key: key.key,
    code: key.code,
    windowsVirtualKeyCode: key.keyCode,
    modifiers,
    ...(text ? { text, unmodifiedText: text } : {}),
    ...(commands?.length ? { commands } : {}),
  };
}

function up(key: Key, modifiers: number): KeyEvent {
  return { type: 'keyUp', key: key.key, code: key.code, windowsVirtualKeyCode: key.keyCode, modifiers };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function checkDelay(what: string, delay: unknown): number {
  if (delay === undefined) return 0;
  if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0) throw new InvalidOptionError(`${what}: \`delay\` must be a number of milliseconds, 0 or more, not ${JSON.stringify(delay)}.`);
  return delay;
}

/** A character a hurried typist hits instead. */
function slip(char: string): string {
  const pool = 'abcdefghijklmnopqrstuvwxyz';
  let wrong = char;
  while (wrong === char) wrong = pool[Math.floor(Math.random() * pool.length)]!;
  return wrong;
}

/** How often `withMistakes` mistypes a character (then takes it back with Backspace). */
const MISTAKE_RATE = 0.12;

/**
 * Types `text` into whatever has focus, one key press per character; "\n" and "\r" press Enter, "\t"
 * Tab. `delay` ms between characters; `withMistakes` now and then types a wrong character and takes
 * it back, as a person does.
 */
export async function typeText(page: KeyboardPage, text: string, options: { delay?: number; withMistakes?: boolean } = {}): Promise<void> {
  page.assertOpen('type()');
  if (typeof text !== 'string') throw new InvalidOptionError(`type(text): \`text\` must be a string, not ${typeof text}.`);
  const delay = checkDelay('type', options?.delay);
  const timeoutMs = page.defaultTimeoutMs;
  const strokes: Key[][] = [];
  for (const char of text) {
    const key = char === '\n' || char === '\r' ? NAMED.Enter! : char === '\t' ? NAMED.Tab! : keyOf(char);
    strokes.push(options?.withMistakes && key.code !== 'Enter' && key.code !== 'Tab' && Math.random() < MISTAKE_RATE ? [keyOf(slip(char)), NAMED.Backspace!, key] : [key]);
  }
  const press = (key: Key) => [down(key, 0, key.text), up(key, 0)].map((event) => page.session.send('Input.dispatchKeyEvent', event, { timeoutMs }));
  // Without a delay, every key goes out at once: a session runs its commands in order.
  if (!delay) {
    await Promise.all(strokes.flat().flatMap(press));
    return;
  }
  for (const keys of strokes) {
    for (const key of keys) {
      await Promise.all(press(key));
      if (keys.length > 1) await sleep(delay);
    }
    await sleep(delay);
  }
}

/** The browser runs on a Mac (its shortcuts use Meta and need editing commands); asked once per page. */
const onMac = new WeakMap<object, Promise<boolean>>();
function isMac(page: KeyboardPage): Promise<boolean> {
  let known = onMac.get(page.session);
  if (!known) onMac.set(page.session, (known = page.evaluate<string>('navigator.platform').then((platform) => /^Mac/i.test(platform), () => false)));
  return known;
}

/** Chrome on a Mac runs editing shortcuts only when told which command they are. */
const MAC_COMMANDS: Record<string, string> = { KeyA: 'selectAll', KeyC: 'copy', KeyX: 'cut', KeyV: 'paste', KeyZ: 'undo' };

/** The keys of a chord, by "+" (a "+" of its own is the plus key). */
function splitChord(keys: string): string[] {
  const parts: string[] = [];
  let part = '';
  for (const char of keys) {
    if (char === '+' && part) {
      parts.push(part);
      part = '';
    } else part += char;
  }
  if (part) parts.push(part);
  return parts;
}

/**
 * Presses a key or a chord: the keys before the last are held, in order, while the last is pressed
 * (`delay` ms between its down and up), then let go in reverse.
 */
export async function keyPress(page: KeyboardPage, keys: string, options: { delay?: number } = {}): Promise<void> {
  page.assertOpen('keyPress()');
  if (typeof keys !== 'string' || !splitChord(keys).length) throw new InvalidOptionError('keyPress(key): name a key, such as "Enter", "a" or "Control+A".');
  const delay = checkDelay('keyPress', options?.delay);
  const names = splitChord(keys);
  const mac = names.some((name) => PLATFORM_KEY.includes(name.toLowerCase()) || name.toLowerCase() === 'meta') ? await isMac(page) : false;
  // Every name is checked before anything is sent: an unknown one leaves no key held.
  const chord = names.map((name): Key => {
    if ([...name].length === 1) return keyOf(name);
    const lower = name.toLowerCase();
    const canonical = PLATFORM_KEY.includes(lower) ? (mac ? 'Meta' : 'Control') : (ALIASES[lower] ?? Object.keys(NAMED).find((each) => each.toLowerCase() === lower));
    if (canonical === ' ') return keyOf(' ');
    const key = canonical && NAMED[canonical];
    if (!key) throw new UnknownKeyError(`keyPress: unknown key "${name}". Use a single character, a key name (${Object.keys(NAMED).join(', ')}) or a chord such as "Control+A".`, name);
    return key;
  });
  const timeoutMs = page.defaultTimeoutMs;
  const send = (event: KeyEvent) => page.session.send('Input.dispatchKeyEvent', event, { timeoutMs });
  let modifiers = 0;
  const held: Key[] = [];
  for (const [index, each] of chord.entries()) {
    modifiers |= MODIFIERS[each.key] ?? 0;
    // With Control, Alt or Meta held a key types nothing: it is a shortcut. Shift only changes the letter.
    const shortcut = (modifiers & ~8) !== 0;
    const key = modifiers & 8 && /^[a-z]$/.test(each.key) ? { ...each, key: each.key.toUpperCase(), text: each.key.toUpperCase() } : each;
    const commands = mac && modifiers & 4 && key.code && MAC_COMMANDS[key.code] ? [MAC_COMMANDS[key.code]!] : undefined;
    await send(down(key, modifiers, shortcut ? undefined : key.text, commands));
    held.push(key);
    if (index === chord.length - 1 && delay) await sleep(delay);
  }
  for (const key of held.reverse()) {
    await send(up(key, modifiers));
    modifiers &= ~(MODIFIERS[key.key] ?? 0);
  }
}
