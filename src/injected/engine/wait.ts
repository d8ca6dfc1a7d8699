// waitForSelector's page half: checks the selector again on every change of the document (a
// MutationObserver on it and on each shadow root it can reach) and, since what is visible can change
// without any (a transition ending, a media query), every POLL_MS as well; it gives up after `ms`,
// and the host asks again (after learning closed shadow roots that appeared meanwhile).

import type { Outcome } from './types.js';

const POLL_MS = 200;

export type WaitState = 'attached' | 'detached' | 'visible' | 'hidden';

/** Resolves with the outcome that meets `state` (a hop or a syntax error always does), or null after `ms`. */
export function waitFor(find: () => Outcome, state: WaitState, ms: number, roots: () => Node[]): Promise<Outcome | null> {
  return new Promise((resolve) => {
    const watched = new Set<Node>();
    const observer = new MutationObserver(() => check(false));
    const finish = (outcome: Outcome | null) => {
      observer.disconnect();
      clearTimeout(timer);
      clearInterval(poll);
      resolve(outcome);
    };
    const check = (rescan: boolean) => {
      const outcome = find();
      if (meets(outcome, state)) return finish(outcome);
      // A new shadow root is no mutation of the tree it joins: its roots are looked for on the poll.
      if (rescan) {
        for (const root of roots()) {
          if (watched.has(root)) continue;
          watched.add(root);
          observer.observe(root, { childList: true, subtree: true, attributes: true, characterData: true });
        }
      }
    };
    const timer = setTimeout(() => finish(null), ms);
    const poll = setInterval(() => check(true), POLL_MS);
    check(true);
  });
}

function meets(outcome: Outcome, state: WaitState): boolean {
  if (outcome.kind === 'syntax' || outcome.kind === 'hop') return true;
  const present = outcome.kind === 'found';
  if (state === 'attached') return present;
  if (state === 'detached') return !present;
  const shown = present && isVisible(outcome.element);
  return state === 'visible' ? shown : !shown;
}

/** Visible: a box of some size, not hidden by `visibility`, `display` or a zero `opacity` on it or above it. */
export function isVisible(el: Element): boolean {
  const rect = el.getBoundingClientRect();
  if (!(rect.width > 0 && rect.height > 0)) return false;
  return typeof el.checkVisibility !== 'function' || el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
}
