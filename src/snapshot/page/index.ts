// Entry point of the snapshot page script. esbuild bundles this folder into CAPTURE_SOURCE
// (generated.ts); the host calls it with Runtime.callFunctionOn, `this` being the frame's selector engine
// in our isolated world, then the options, the scope root (or null) and the frames' iframe elements.

import { Renderer } from './render.js';
import type { CaptureOptions, CaptureResult, EngineLike } from './types.js';
import { clean } from './text.js';
import { Walker } from './walk.js';

export type { CaptureOptions, CaptureResult } from './types.js';

/**
 * Returns the CaptureResult as a JSON string: one string crosses the protocol far faster than the
 * same data as a tree of protocol values (a large page has hundreds of thousands of them).
 */
export function run(engine: EngineLike, options: CaptureOptions, root: Element | null, frameElements: Element[]): string {
  return JSON.stringify(capture(engine, options, root, frameElements));
}

function capture(engine: EngineLike, options: CaptureOptions, root: Element | null, frameElements: Element[]): CaptureResult | string {
  if (options.mode === 'xpath') return absoluteXPath(frameElements[0]!);
  const frames = new Map<Element, string>();
  frameElements.forEach((el, i) => {
    if (el) frames.set(el, options.frameKeys[i]!);
  });
  const start = root ?? document.documentElement;
  if (!start) return new Renderer(options.frame).result(false);
  const walker = new Walker(engine, frames);
  const items = walker.walk(start);
  const renderer = new Renderer(options.frame);
  if (options.rootLine) renderer.rootLine(clean(document.title));
  renderer.render(items, options.rootLine ? 1 : 0);
  engine.noteSuspects(walker.suspects);
  // A scoped walk sees only part of the document, but a scan always reads all of it.
  const size = root ? document.getElementsByTagName('*').length : walker.elements;
  const small = size <= options.smallDocument;
  return renderer.result(small || walker.suspects.length > 0);
}

function absoluteXPath(el: Element): string {
  const renderer = new Renderer(0);
  const entry = renderer.entryOf(el);
  const steps: string[] = [];
  for (let at = entry; at >= 0; at = renderer.xp[at * 2] as number) steps.push(renderer.xp[at * 2 + 1] as string);
  return '/' + steps.reverse().join('/');
}
