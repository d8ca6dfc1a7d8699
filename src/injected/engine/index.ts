// Entry point of the page-side selector engine. esbuild bundles this directory into ENGINE_SOURCE
// (generated.ts); the host evaluates it in an isolated world of each frame and keeps the returned object.

import type { Engine, Outcome } from './types.js';
import { ShadowRegistry } from './composed.js';
import { resolveCss } from './css.js';
import { elementHelpers } from './element.js';
import { Ids } from './ids.js';
import { addStyle, mask, removeStyle, settleAnimations, unmask } from './paint.js';
import { aim, arm, describe, disarm, verdict, watchPress } from './pointer.js';
import { resolveText } from './text.js';
import { waitFor, type WaitState } from './wait.js';
import { xpathOf } from './xpathOf.js';
import { resolveXPath } from './xpath.js';

export type { Engine } from './types.js';

export function createEngine(): Engine {
  const shadows = new ShadowRegistry();
  let stashedFrame: Element | null = null;
  let suspects: Element[] = [];
  const scanned = new WeakSet<Element>();
  // Until a first scan, isScanned() needs no lookup (a fresh wrapper's first WeakSet lookup is dear).
  let anyScanned = false;
  const ids = new Ids();

  // What a search that must not enter shadow roots uses instead of `shadows`.
  const noShadows = new (class extends ShadowRegistry {
    override rootOf(): null {
      return null;
    }
  })();

  return {
    resolve(selector: string, nth = 0): Element | string {
      const outcome = settle(dispatch(String(selector), shadows, nth > 0, ids));
      if (typeof outcome !== 'object') return outcome;
      return (Array.isArray(outcome) ? outcome[nth] : outcome) ?? 'none';
    },
    countMatches(selector: string): number | string {
      const outcome = settle(dispatch(String(selector), shadows, true, ids));
      if (outcome === 'none') return 0;
      return typeof outcome === 'object' ? (Array.isArray(outcome) ? outcome.length : 1) : outcome;
    },
    takeHop(): Element | null {
      const frame = stashedFrame;
      stashedFrame = null;
      return frame;
    },
    registerClosedShadowRoot(root: ShadowRoot): void {
      shadows.register(root);
    },
    closedRootCount(): number {
      return shadows.count();
    },
    rootOf(el: Element): ShadowRoot | null {
      return shadows.rootOf(el);
    },
    noteSuspects(els: Element[]): void {
      suspects = Array.from(els);
    },
    suspects(): Element[] {
      return suspects;
    },
    markSuspectsScanned(): void {
      for (const el of suspects) scanned.add(el);
      anyScanned ||= suspects.length > 0;
      suspects = [];
    },
    isScanned(el: Element): boolean {
      return anyScanned && scanned.has(el);
    },
    ids,
    aim,
    arm,
    watchPress,
    verdict,
    disarm,
    describe,
    ...elementHelpers,
    xpathOf,
    scrollOffsets: () => [scrollX, scrollY],
    drawn: (frames: number) =>
      new Promise((resolve) => {
        const next = (left: number) => (left > 0 ? requestAnimationFrame(() => next(left - 1)) : resolve(true));
        next(frames);
      }),
    async waitFor(selector: string, state: string, pierce: boolean, ms: number): Promise<string> {
      const registry = pierce ? shadows : noShadows;
      const outcome = await waitFor(
        () => dispatch(String(selector), registry, false, ids),
        state as WaitState,
        ms,
        () => [document, ...registry.rootsUnder(document)],
      );
      if (!outcome) return 'pending';
      // Found, or none when that is what was waited for: the state is met.
      return outcome.kind === 'found' || outcome.kind === 'none' ? 'ok' : (settle(outcome) as string);
    },
    addStyle,
    removeStyle,
    settleAnimations,
    mask,
    unmask,
  };

  /** The element(s) found, or what resolve() answers instead; a hop's iframe is stashed for takeHop(). */
  function settle(outcome: Outcome): Element | Element[] | string {
    // A stale frame from an earlier call must never be mistaken for this call's hop.
    stashedFrame = null;
    switch (outcome.kind) {
      case 'found':
        return outcome.element;
      case 'all':
        return outcome.elements;
      case 'hop':
        stashedFrame = outcome.hop.frame;
        return `hop:${outcome.hop.rest}`;
      case 'syntax':
        return `syntax:${outcome.message}`;
      case 'none':
        return 'none';
    }
  }
}

/** With `all`, every match (of the last part, for CSS that crosses elements or frames). */
function dispatch(raw: string, shadows: ShadowRegistry, all: boolean, ids: Ids): Outcome {
  const selector = raw.trim();
  // `ref=N`: the element behind an id of the page text, itself (the host found its frame).
  if (selector.startsWith('ref=')) {
    const element = ids.byId(Number(selector.slice(4)));
    return element ? (all ? { kind: 'all', elements: [element] } : { kind: 'found', element }) : { kind: 'none' };
  }
  if (selector.startsWith('xpath=')) return xpath(selector.slice(6).trim(), shadows, all);
  if (selector.startsWith('css=')) return resolveCss(selector.slice(4), shadows, document, all);
  if (/^text=/i.test(selector)) return resolveText(selector.slice(5), shadows, document, all);
  if (!selector) return { kind: 'syntax', message: 'empty selector' };
  return looksLikeXPath(selector) ? xpath(selector, shadows, all) : resolveCss(selector, shadows, document, all);
}

function xpath(expr: string, shadows: ShadowRegistry, all: boolean): Outcome {
  if (!expr) return { kind: 'syntax', message: 'empty XPath' };
  return resolveXPath(expr, shadows, document, all);
}

/** `.` alone starts a CSS class selector, so only `./` and `..` mark a relative XPath. */
function looksLikeXPath(selector: string): boolean {
  return selector[0] === '/' || selector[0] === '(' || selector.startsWith('./') || selector.startsWith('..');
}
