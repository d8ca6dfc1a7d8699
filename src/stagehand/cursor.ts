// Stagehand's page.enableCursorOverlay(): an arrow over the page that follows Tendril's pointer
// input, every mouse, wheel, touch and drag event the page's session sends (page.click(x, y), a
// locator's click, act()'s), in this document and every later one (an init script). The arrow is
// the page script in src/injected/cursor/; here it is installed and moved.

import type { CdpSession } from '../cdp/session.js';
import type { Page } from '../driver/page.js';
import { CURSOR_SOURCE } from '../generated/cursor.js';
import { CURSOR_KEY } from '../injected/cursor/key.js';

/** Sessions whose pointer events move an arrow. */
const following = new WeakSet<CdpSession>();

/** Where a pointer command aims, in the top page's CSS pixels; undefined for other commands. */
function aim(method: string, params: unknown): [number, number] | undefined {
  const given = (params ?? {}) as { x?: unknown; y?: unknown; type?: string; touchPoints?: Array<{ x?: unknown; y?: unknown }> };
  const point =
    method === 'Input.dispatchMouseEvent' || method === 'Input.dispatchDragEvent'
      ? given
      : method === 'Input.dispatchTouchEvent'
        ? given.touchPoints?.[0]
        : undefined;
  const { x, y } = point ?? {};
  return typeof x === 'number' && typeof y === 'number' && Number.isFinite(x) && Number.isFinite(y) ? [x, y] : undefined;
}

/**
 * Moves the arrow right before each pointer command goes out. The move is sent first on the same
 * session and not awaited; the session's hook (CdpSession.beforeSend) is shared, so the one there
 * before runs too.
 */
function follow(session: CdpSession): void {
  if (following.has(session)) return;
  following.add(session);
  const before = session.beforeSend;
  session.beforeSend = (method, params) => {
    before?.(method, params);
    const point = aim(method, params);
    if (!point) return;
    void session.sendQuiet('Runtime.evaluate', {
      expression: `globalThis[${JSON.stringify(CURSOR_KEY)}]?.move(${Math.round(point[0])}, ${Math.round(point[1])})`,
    });
  };
}

/** Pages whose overlay is on (or being turned on). */
const enabled = new WeakMap<CdpSession, Promise<void>>();

/** StagehandPage.enableCursorOverlay(). */
export async function enableCursorOverlay(page: Page): Promise<void> {
  page.assertOpen('enableCursorOverlay()');
  const { session } = page;
  let done = enabled.get(session);
  if (!done) {
    done = (async () => {
      await session.send('Page.addScriptToEvaluateOnNewDocument', { source: CURSOR_SOURCE }, { timeoutMs: page.defaultTimeoutMs });
      follow(session);
      // The current document too; one on its way out is replaced by one that runs the script.
      await session.sendQuiet('Runtime.evaluate', { expression: CURSOR_SOURCE });
    })();
    enabled.set(session, done);
    // A call that failed (the page closing) leaves the next one to try again.
    done.catch(() => enabled.delete(session));
  }
  await done;
}
