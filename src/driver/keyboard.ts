// The keyboard: which key types each character and what each key name means, and how a chord
// goes out as key events. Shared by act()'s press and type (input.ts) and Stagehand's
// page.type/keyPress (pageKeys.ts).

import type { Protocol } from 'devtools-protocol';
import type { CdpSession } from '../cdp/session.js';
import { UnknownKeyError } from '../errors.js';
import { sleep } from '../util/time.js';

export interface Key {
  key: string;
  code?: string;
  keyCode?: number;
  text?: string;
}

const named = (key: string, keyCode: number, code = key, text?: string): Key => ({ key, code, keyCode, text });
export const NAMED: Record<string, Key> = {
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
export const PLATFORM_KEY = ['cmd', 'command', 'controlormeta'];
const MODIFIERS: Record<string, number> = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };

// A US keyboard's punctuation: the key each character is on, unshifted then shifted.
const PLAIN = "`-=[]\\;',./";
const SHIFTED = '~_+{}|:"<>?';
const PUNCTUATION_CODES = [
  'Backquote',
  'Minus',
  'Equal',
  'BracketLeft',
  'BracketRight',
  'Backslash',
  'Semicolon',
  'Quote',
  'Comma',
  'Period',
  'Slash',
];
const PUNCTUATION_KEYCODES = [192, 189, 187, 219, 221, 220, 186, 222, 188, 190, 191];
const SHIFTED_DIGITS = ')!@#$%^&*(';

/** The key that types `char` (a single character), with the text it types. */
export function keyOf(char: string): Key {
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

export function down(key: Key, modifiers: number, text: string | undefined, commands?: string[]): KeyEvent {
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

export function up(key: Key, modifiers: number): KeyEvent {
  return { type: 'keyUp', key: key.key, code: key.code, windowsVirtualKeyCode: key.keyCode, modifiers };
}

/**
 * The keys of a chord, by "+" (a "+" of its own is the plus key). One ending in a "+" that joins
 * nothing ("Shift+") ends in an empty name, which chordOf refuses.
 */
export function splitChord(keys: string): string[] {
  const parts: string[] = [];
  let part = '';
  for (const char of keys) {
    if (char === '+' && part) {
      parts.push(part);
      part = '';
    } else part += char;
  }
  if (part || parts.length) parts.push(part);
  return parts;
}

/**
 * The keys of a chord's names, every one checked before anything is sent: an unknown one is an
 * UnknownKeyError naming it, and leaves no key held. `mac`: "Cmd" and its kin mean Meta, else Control.
 */
export function chordOf(names: string[], mac: boolean, prefix = ''): Key[] {
  return names.map((name): Key => {
    if ([...name].length === 1) return keyOf(name);
    const lower = name.toLowerCase();
    const canonical = PLATFORM_KEY.includes(lower)
      ? mac
        ? 'Meta'
        : 'Control'
      : (ALIASES[lower] ?? Object.keys(NAMED).find((each) => each.toLowerCase() === lower));
    if (canonical === ' ') return keyOf(' ');
    const key = canonical && NAMED[canonical];
    if (!key)
      throw new UnknownKeyError(
        `${prefix}${name ? `unknown key "${name}"` : 'a chord ends in "+"'}. Use a single character, a key name (${Object.keys(NAMED).join(', ')}) or a chord such as "Control+A".`,
        name,
      );
    return key;
  });
}

/** Chrome on a Mac runs editing shortcuts only when told which command they are. */
const MAC_COMMANDS: Record<string, string> = { KeyA: 'selectAll', KeyC: 'copy', KeyX: 'cut', KeyV: 'paste', KeyZ: 'undo' };

/**
 * Presses a chord: the keys before the last are held, in order, while the last is pressed (`delay`
 * ms between its down and up), then let go in reverse.
 */
export async function pressChord(
  session: CdpSession,
  chord: Key[],
  options: { mac: boolean; delay?: number; timeoutMs: number },
): Promise<void> {
  const send = (event: KeyEvent) => session.send('Input.dispatchKeyEvent', event, { timeoutMs: options.timeoutMs });
  let modifiers = 0;
  const held: Key[] = [];
  for (const [index, each] of chord.entries()) {
    modifiers |= MODIFIERS[each.key] ?? 0;
    // With Control, Alt or Meta held a key types nothing: it is a shortcut. Shift only changes the letter.
    const shortcut = (modifiers & ~8) !== 0;
    const key = modifiers & 8 && /^[a-z]$/.test(each.key) ? { ...each, key: each.key.toUpperCase(), text: each.key.toUpperCase() } : each;
    const commands = options.mac && modifiers & 4 && key.code && MAC_COMMANDS[key.code] ? [MAC_COMMANDS[key.code]!] : undefined;
    await send(down(key, modifiers, shortcut ? undefined : key.text, commands));
    held.push(key);
    if (index === chord.length - 1 && options.delay) await sleep(options.delay);
  }
  for (const key of held.reverse()) {
    await send(up(key, modifiers));
    modifiers &= ~(MODIFIERS[key.key] ?? 0);
  }
}
