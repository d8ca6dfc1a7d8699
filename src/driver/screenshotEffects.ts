// What a screenshot changes in the page for the picture, each with the function that takes it back
// (run once the picture is taken, also when it failed): a transparent default background, style
// sheets in every frame (the caret hidden, animations stopped, the caller's CSS), and boxes over
// masked elements. The page-side halves are in src/injected/engine/paint.ts.

import type { CdpSession } from '../cdp/session.js';
import { ElementNotFoundError } from '../errors.js';
import { engineCall } from './engineCall.js';
import type { Frame } from './frame.js';
import { releaseElement, type ResolvedElement } from './locator.js';
import type { CheckedScreenshot } from './screenshotOptions.js';

export type Undo = () => Promise<unknown>;
type Resolvable = { resolve(timeoutMs: number): Promise<ResolvedElement>; resolveAll(timeoutMs: number): Promise<ResolvedElement[]> };

/** What effects need of a page (page.ts's Page has it). */
export interface EffectsPage {
  readonly session: CdpSession;
  frames(): Frame[];
  locator(selector: string): Resolvable;
}

const CARET_CSS = '*, *:focus, [contenteditable] { caret-color: transparent !important; }';
const STILL_CSS =
  '*, *::before, *::after { animation-delay: 0s !important; animation-duration: 0s !important; animation-iteration-count: 1 !important; animation-play-state: paused !important; transition: none !important; }';

let masks = 0;

/** Applies the effects `options` ask for; resolves with how to take each back. */
export async function applyEffects(page: EffectsPage, options: CheckedScreenshot, timeoutMs: number): Promise<Undo[]> {
  const undo: Undo[] = [];
  try {
    if (options.omitBackground) {
      await page.session.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } }, { timeoutMs });
      undo.push(() => page.session.sendQuiet('Emulation.setDefaultBackgroundColorOverride', {}));
    }
    const css = [options.caret === 'hide' ? CARET_CSS : '', options.animations === 'disabled' ? STILL_CSS : '', options.style]
      .filter(Boolean)
      .join('\n');
    if (css) {
      const frames = page.frames().filter((frame) => !frame.isDetached() && !frame.showsErrorPage());
      // A frame that cannot take the sheet (going away, still loading) is left as it is.
      await Promise.all(
        frames.map(async (frame) => {
          const token = await engineCall<string>(frame, 'addStyle', [{ value: css }], timeoutMs).catch(() => undefined);
          if (token === undefined) return;
          undo.push(() => engineCall(frame, 'removeStyle', [{ value: token }], timeoutMs).catch(() => undefined));
          if (options.animations === 'disabled') await engineCall(frame, 'settleAnimations', [], timeoutMs).catch(() => undefined);
        }),
      );
    }
    if (options.mask.length) undo.push(await applyMasks(page, options, timeoutMs));
    return undo;
  } catch (error) {
    await undoAll(undo);
    throw error;
  }
}

export async function undoAll(undo: Undo[]): Promise<void> {
  await Promise.all(undo.map((each) => each().catch(() => undefined)));
}

/** Covers every element each mask matches (a locator's nth() only its own); one that matches nothing is no error. */
async function applyMasks(page: EffectsPage, options: CheckedScreenshot, timeoutMs: number): Promise<Undo> {
  const token = `m${++masks}`;
  const frames = new Set<Frame>();
  const undo = () =>
    Promise.all([...frames].map((frame) => engineCall(frame, 'unmask', [{ value: token }], timeoutMs).catch(() => undefined)));
  try {
    // One at a time: the engine keeps the iframe a selector stopped at until it is taken, for one
    // selector at a time.
    for (const item of options.mask) {
      // A locator resolves itself (a frame's, say, from its frame); a selector goes from the page.
      const given = item as { resolveAll?: unknown; selector: string };
      const locator =
        typeof item === 'string'
          ? page.locator(item)
          : typeof given.resolveAll === 'function'
            ? (item as Resolvable)
            : page.locator(given.selector);
      const elements = await locator.resolveAll(timeoutMs).catch((error: unknown) => {
        if (error instanceof ElementNotFoundError) return [];
        throw error;
      });
      try {
        // The matches' boxes go up together: a session runs its commands in order.
        await Promise.all(
          elements.map((element) => {
            frames.add(element.frame);
            return engineCall(
              element.frame,
              'mask',
              [{ objectId: element.objectId }, { value: options.maskColor }, { value: token }],
              timeoutMs,
            );
          }),
        );
      } finally {
        elements.forEach(releaseElement);
      }
    }
  } catch (error) {
    await undo();
    throw error;
  }
  return undo;
}
