// Entry point of the snapshot page script. esbuild bundles this folder into READER_SOURCE
// (generated.ts), which the host installs beside the frame's selector engine in our isolated world
// (src/snapshot/call.ts) and calls with the engine, the options, the scope root (or null) and the
// frames' iframe elements.

import { InteractiveLens } from './interactive.js';
import { Renderer, type Lens } from './render.js';
import type { CaptureOptions, CaptureResult, EngineLike } from './types.js';
import { clean } from './text.js';
import { ViewportLens } from './viewport.js';
import { Walker } from './walk.js';
import { XPathBuilder } from './xpath.js';

export type { CaptureOptions, CaptureResult } from './types.js';

/**
 * Returns one string: it crosses the protocol far faster than the same data as a tree of protocol
 * values (a large page has hundreds of thousands of them). A capture's text, most of the answer,
 * follows its JSON header raw after the first newline (JSON.stringify writes none of its own):
 * inside JSON it would be escaped twice on the wire, once more by the protocol, and parsed twice.
 */
export function run(engine: EngineLike, options: CaptureOptions, root: Element | null, frameElements: Element[]): string {
  switch (options.mode) {
    case 'element':
      return JSON.stringify(new XPathBuilder().of(frameElements[0]!));
    case 'xpaths': {
      const builder = new XPathBuilder();
      return JSON.stringify(
        (options.ids ?? []).map((id) => {
          const el = engine.ids.byId(id);
          return el ? builder.of(el) : null;
        }),
      );
    }
    default: {
      const { text, ...header } = capture(engine, options, root, frameElements);
      return `${JSON.stringify(header)}\n${text}`;
    }
  }
}

function capture(engine: EngineLike, options: CaptureOptions, root: Element | null, frameElements: Element[]): CaptureResult {
  const frames = new Map<Element, string>();
  frameElements.forEach((el, i) => {
    if (el) frames.set(el, options.frameKeys[i]!);
  });
  engine.ids.startRead(options.key);
  const renderer = new Renderer(options.frame, engine.ids, lensFor(options));
  const start = root ?? document.documentElement;
  if (!start) return renderer.result({ small: false, suspects: 0, known: 0 });
  const walker = new Walker(engine, frames);
  const items = walker.walk(start);
  if (options.rootLine) renderer.rootLine(clean(document.title));
  renderer.render(items, options.rootLine ? 1 : 0);
  engine.noteSuspects(walker.suspects);
  // A scoped walk sees only part of the document, but a scan always reads all of it.
  const size = root ? document.getElementsByTagName('*').length : walker.elements;
  return renderer.result({ small: size <= options.smallDocument, suspects: walker.suspects.length, known: engine.closedRootCount() });
}

function lensFor(options: CaptureOptions): Lens | null {
  if (options.view === 'viewport') return new ViewportLens(options.dialogs === true);
  if (options.view === 'interactive') return new InteractiveLens();
  return null;
}
