// Stagehand's keyboard: page.type(text) sends a key press per character into whatever has focus
// (never inserting text another way), page.keyPress(keys) a key or a chord ("Enter", "Shift+Tab",
// "Cmd+A"). "Cmd", "Command" and "ControlOrMeta" mean Meta where the browser runs on a Mac and
// Control elsewhere, so the same shortcut selects all on either.

import type { CdpSession } from '../cdp/session.js';
import { InvalidOptionError } from '../errors.js';
import { chordOf, down, keyOf, NAMED, PLATFORM_KEY, pressChord, splitChord, up, type Key } from './keyboard.js';
import { exclusive } from './input.js';
import { milliseconds } from '../util/checks.js';
import { sleep } from '../util/time.js';

/** What typing needs of a page (page.ts's Page has it). */
export interface KeyboardPage {
  readonly session: CdpSession;
  readonly defaultTimeoutMs: number;
  assertOpen(what: string): void;
  evaluate<Result>(expression: string): Promise<Result>;
}

function checkDelay(what: string, delay: unknown): number {
  return delay === undefined ? 0 : milliseconds(delay, `${what}: \`delay\``);
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
    strokes.push(
      options?.withMistakes && key.code !== 'Enter' && key.code !== 'Tab' && Math.random() < MISTAKE_RATE
        ? [keyOf(slip(char)), NAMED.Backspace!, key]
        : [key],
    );
  }
  const press = (key: Key) =>
    [down(key, 0, key.text), up(key, 0)].map((event) => page.session.send('Input.dispatchKeyEvent', event, { timeoutMs }));
  await exclusive(page, async () => {
    // Without a delay, every key goes out at once: a session runs its commands in order.
    if (!delay) return Promise.all(strokes.flat().flatMap(press));
    for (const keys of strokes) {
      for (const key of keys) {
        await Promise.all(press(key));
        if (keys.length > 1) await sleep(delay);
      }
      await sleep(delay);
    }
  });
}

/** The browser runs on a Mac (its shortcuts use Meta and need editing commands); asked once per page. */
const onMac = new WeakMap<object, Promise<boolean>>();
function isMac(page: KeyboardPage): Promise<boolean> {
  let known = onMac.get(page.session);
  if (!known)
    onMac.set(
      page.session,
      (known = page.evaluate<string>('navigator.platform').then(
        (platform) => /^Mac/i.test(platform),
        () => false,
      )),
    );
  return known;
}

/**
 * Presses a key or a chord: the keys before the last are held, in order, while the last is pressed
 * (`delay` ms between its down and up), then let go in reverse.
 */
export async function keyPress(page: KeyboardPage, keys: string, options: { delay?: number } = {}): Promise<void> {
  page.assertOpen('keyPress()');
  if (typeof keys !== 'string' || !keys) throw new InvalidOptionError('keyPress(key): name a key, such as "Enter", "a" or "Control+A".');
  const delay = checkDelay('keyPress', options?.delay);
  const names = splitChord(keys);
  const mac = names.some((name) => PLATFORM_KEY.includes(name.toLowerCase()) || name.toLowerCase() === 'meta') ? await isMac(page) : false;
  // Every name is checked before anything is sent: an unknown one leaves no key held.
  const chord = chordOf(names, mac, 'keyPress: ');
  await exclusive(page, () => pressChord(page.session, chord, { mac, delay, timeoutMs: page.defaultTimeoutMs }));
}
