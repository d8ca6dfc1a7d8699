// The host side of a capture: which frames to walk, in parallel across their sessions; handing each walk
// its child frames' iframe elements; stitching the frames' text together; and the error policy (a
// child frame that goes away is skipped, the frame the caller asked about is not).

import type { Protocol } from 'devtools-protocol';
import { ElementNotFoundError, PageClosedError, SdkDomProcessError, SdkEvalError, TimeoutError } from '../errors.js';
import type { Logger } from '../logger.js';
import { isContextGone, objectGroup } from '../driver/evaluate.js';
import type { EngineHandle, Frame } from '../driver/frame.js';
import { resolveSelector, type ResolvedElement } from '../driver/locator.js';
import type { Page } from '../driver/page.js';
import { frameNumbers } from '../driver/refs.js';
import { askSuspects } from '../driver/shadow.js';
import { withDeadline } from '../util/time.js';
import type { CaptureOptions, CaptureResult } from '../injected/reader/types.js';
import { callPageScript } from './call.js';
import { isStaleHandle, mapError } from './captureErrors.js';
import { findClosedRoots } from './closedRoots.js';
import { parsed, replaced } from './documents.js';
import { Snapshot, type FramePart } from './snapshot.js';
import { viewportText } from './views.js';

export interface CaptureSnapshotOptions {
  /** XPath or CSS; only that element's subtree (and the frames inside it) is captured. */
  selector?: string;
  /** Deadline of the whole capture, in ms (default: the page's command timeout). */
  timeoutMs?: number;
  logger?: Logger;
  /** 'viewport' or 'interactive' (see ExtractOptions.view); default 'full'. */
  view?: 'full' | 'viewport' | 'interactive';
}

/** Documents up to this many elements that the closed-root watch does not report on are always scanned. */
const SMALL_DOCUMENT = 3000;
/** Walks that may each find closed roots inside the ones found before, before one scan of the whole document instead. */
const MAX_PROBE_ROUNDS = 2;
const FRAME_MARK = '\u0001';
/**
 * How long a read waits for the browser to take up the navigation its main document asked for
 * (see documents.ts), and then for that navigation to bring its document: a slow server or a new
 * renderer process on a loaded machine takes seconds, and a page that asks for a document its
 * server never sends should cost a read no more than that (never more than the call's timeout).
 */
const REPLACEMENT_WAIT_MS = 1000;
const REPLACEMENT_UNDERWAY_MS = 5000;
/**
 * Time left before the call's deadline when a wait for the replacement gives up, so the read in
 * hand is what the call returns rather than its TimeoutError (both timers would fire at once).
 */
const LAST_READ_MARGIN_MS = 50;

/** A frame's capture and the engine whose ids it holds. */
type Captured = CaptureResult & { engine: string };

let captures = 0;

/**
 * Captures the page (or the part `selector` names) as accessibility-tree text with its maps. A page
 * that replaces its document while it is read (a reload loop, a redirect) is read again, its newest
 * document, until one holds still long enough or the time is up.
 */
export function captureSnapshot(page: Page, options: CaptureSnapshotOptions = {}): Promise<Snapshot> {
  if (page.isClosed()) return Promise.reject(new PageClosedError('This page is closed; there is nothing to capture.'));
  const timeoutMs = options.timeoutMs ?? page.defaultTimeoutMs;
  const capture = new Capture(page, Date.now() + timeoutMs, options.logger, options.view ?? 'full');
  return withDeadline(
    capture.run(options.selector),
    timeoutMs,
    `Capturing the text of ${page.url() || 'the page'}`,
    'The page may be busy (a script that does not yield) or very large; raise `timeout` or try again once it settles.',
  )
    .catch((error: unknown) => {
      throw capture.explain(error, timeoutMs);
    })
    .finally(() => capture.stopWatching());
}

class Capture {
  readonly #parts = new Map<string, FramePart>();
  /** The F of `[F-N]`: it stays with its frame from read to read (driver/refs.ts). */
  #ordinal: (frame: Frame) => number;
  /** Times the document being read went away: each starts a new round of reading. */
  #round = 0;
  /** Documents the main frame committed since the capture began. */
  #commits = 0;
  readonly stopWatching: () => void;

  constructor(
    private readonly page: Page,
    private readonly deadline: number,
    private readonly logger: Logger | undefined,
    private readonly view: 'full' | 'viewport' | 'interactive',
  ) {
    this.#ordinal = frameNumbers(page);
    const main = page.mainFrame();
    let loader = main.committedLoaderId;
    this.stopWatching = main.changed.on('change', () => {
      if (main.committedLoaderId === loader) return;
      loader = main.committedLoaderId;
      this.#commits++;
    });
  }

  #remaining(deadline = this.deadline): number {
    return Math.max(1, deadline - Date.now());
  }

  async run(selector: string | undefined): Promise<Snapshot> {
    for (;;) {
      const main = this.page.mainFrame();
      const shown = main.committedLoaderId;
      let frame = main;
      const commits = this.#commits;
      try {
        let snapshot: Snapshot;
        if (selector === undefined) snapshot = await this.#whole();
        else {
          const scope = await resolveSelector(this.page, selector, this.#remaining());
          frame = scope.frame;
          snapshot = await this.#scoped(scope);
        }
        // Read whole, but maybe on its way out: then the document that replaces it is read, time
        // permitting (once time is up, the last whole read is better than none).
        const left = this.#remaining() - LAST_READ_MARGIN_MS;
        const underwayMs = Math.min(REPLACEMENT_UNDERWAY_MS, left);
        if (left <= 0 || !(await replaced(main, shown, Math.min(REPLACEMENT_WAIT_MS, left), underwayMs))) return snapshot;
      } catch (error) {
        // The document asked about was replaced while it was read: read the newest one, as long as
        // the call may take. A scope is looked up again in it: the selector names an element of
        // whatever document is there, and the old element went with the old document. Nor is a
        // scope missing from a document that came meanwhile missing for good: the lookup may have
        // run before that document was parsed.
        const gone = isContextGone(error) || (error instanceof ElementNotFoundError && this.#commits !== commits);
        if (!gone || Date.now() >= this.deadline) throw mapError(error, frame);
      }
      this.#round++;
      this.#parts.clear();
      this.#ordinal = frameNumbers(this.page);
      this.logger?.debug('snapshot', 'The page replaced its document; reading the new one', { url: frame.url() });
      await parsed(this.page.mainFrame(), this.#remaining() / 2);
    }
  }

  /**
   * The error of a capture that failed. When time ran out while the page kept replacing its
   * document, that is what the caller needs to hear, not which step the time ran out in.
   */
  explain(error: unknown, timeoutMs: number): unknown {
    const gaveUp = error instanceof TimeoutError || (error instanceof SdkEvalError && isContextGone(error.cause));
    // One new document on the way is a navigation, not a page that keeps navigating.
    if (!gaveUp || (this.#round === 0 && this.#commits < 2)) return error;
    const documents = Math.max(this.#round, this.#commits);
    return new TimeoutError(
      `Capturing the text of ${this.page.url() || 'the page'} timed out after ${timeoutMs} ms: the page kept navigating ` +
        `(${documents} new document${documents === 1 ? '' : 's'} while it was read), none still long enough to read. ` +
        'A page that reloads itself in a loop never settles: navigate it elsewhere; else call again later or raise `timeout`.',
      timeoutMs,
    );
  }

  async #whole(): Promise<Snapshot> {
    const main = this.page.mainFrame();
    // Every frame at once: out-of-process frames really work in parallel, and a frame the main
    // document hides is simply never stitched in.
    const frames = this.page.frames().filter((frame) => frame === main || readable(frame));
    const tried = new Set(frames);
    await Promise.all(frames.map((frame) => this.#part(frame, frame === main, null)));
    // A frame that came while the others were read (an out-of-process frame attaching late, as
    // those of a document restored from the back-forward cache do) but whose iframe a parent
    // showed: read it too, and what it holds, rather than leave its iframe empty.
    for (let late = this.#lateFrames(tried); late.length; late = this.#lateFrames(tried)) {
      for (const frame of late) tried.add(frame);
      await Promise.all(late.map((frame) => this.#part(frame, false, null)));
    }
    return this.#snapshot(main);
  }

  async #scoped(scope: ResolvedElement): Promise<Snapshot> {
    try {
      let level: Frame[] = [scope.frame];
      await this.#part(scope.frame, true, scope);
      // Only the frames whose iframe lies inside the scope, level by level.
      while (level.length) {
        const next = level.flatMap((frame) => this.#childrenShown(frame));
        await Promise.all(next.map((frame) => this.#part(frame, false, null)));
        level = next;
      }
      return await this.#snapshot(scope.frame);
    } finally {
      void scope.world.session.sendQuiet('Runtime.releaseObject', { objectId: scope.objectId });
    }
  }

  /** Frames not read yet that a read frame shows, or that sit inside one of those. */
  #lateFrames(tried: Set<Frame>): Frame[] {
    const out: Frame[] = [];
    for (const { frame } of this.#parts.values()) {
      for (const child of this.#childrenShown(frame)) if (!tried.has(child)) out.push(child);
    }
    return out;
  }

  #childrenShown(frame: Frame): Frame[] {
    const shown = this.#parts.get(frame.id)?.result.frames ?? [];
    const out: Frame[] = [];
    for (let i = 0; i < shown.length; i += 2) {
      const child = this.page.frameManager.frame(shown[i] as string);
      if (child && readable(child)) out.push(child);
    }
    return out;
  }

  /**
   * Captures one frame. Only the frame the caller asked about may fail the capture (with the error
   * as it came, for run() to judge); any other gets half of the time left, so one stuck iframe (an
   * ad spinning in a loop) costs part of the text, not the whole call.
   */
  async #part(frame: Frame, required: boolean, scope: ResolvedElement | null): Promise<void> {
    const deadline = required ? this.deadline : Date.now() + this.#remaining() / 2;
    const round = this.#round;
    try {
      const rootLine = required && !scope && frame === this.page.mainFrame();
      const capture = this.#captureFrame(frame, scope, rootLine, required, deadline);
      const result = required ? await capture : await withDeadline(capture, this.#remaining(deadline), `Capturing frame ${frame.url()}`);
      // A frame of a round given up (its main document went away) is not part of this one.
      if (round !== this.#round) return;
      this.#parts.set(frame.id, { ordinal: this.#ordinal(frame), frame, engine: result.engine, result, parent: null, prefix: '' });
    } catch (error) {
      if (required) throw error;
      // A frame that detached, navigated away or did not answer in time is left out.
      this.logger?.info('snapshot', 'Left out a frame that could not be read', {
        url: frame.url(),
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  async #captureFrame(frame: Frame, scope: ResolvedElement | null, rootLine: boolean, top: boolean, deadline: number): Promise<Captured> {
    for (let attempt = 0; ; attempt++) {
      const engine = await frame.engine(this.#remaining(deadline));
      try {
        return await this.#walk(frame, engine, scope, rootLine, top, deadline);
      } catch (error) {
        // A handle on an iframe's element was let go before the walk used it (a read that took
        // longer than Frame.releaseOwner's grace): walk again, without the frames gone since.
        if (isStaleHandle(error) && attempt < 3) continue;
        // A new document replaced the one we were walking: walk the new one, once here (run()
        // goes on trying for the frame asked about). A scope element belonged to the old
        // document: run() looks it up again.
        if (!isContextGone(error)) throw error;
        frame.forgetWorld(engine.world);
        if (attempt > 0 || scope) throw error;
      }
    }
  }

  async #walk(
    frame: Frame,
    engine: EngineHandle,
    scope: ResolvedElement | null,
    rootLine: boolean,
    top: boolean,
    deadline: number,
  ): Promise<Captured> {
    const remaining = () => this.#remaining(deadline);
    const { session } = engine.world;
    const group = objectGroup('snapshot');
    try {
      const children = frame.childFrames().filter((child) => !child.isDetached());
      const owners = await Promise.all(
        children.map((child) =>
          child.ownerHandle(remaining()).catch((error: unknown) => {
            if (error instanceof TimeoutError) throw error;
            return undefined; // detached meanwhile: the walk will not find its iframe, which is right
          }),
        ),
      );
      const key = `c${++captures}`;
      const options: CaptureOptions = {
        mode: 'capture',
        key,
        frame: this.#ordinal(frame),
        frameKeys: [],
        rootLine,
        smallDocument: SMALL_DOCUMENT,
        view: this.view,
      };
      // The open dialog that counts is the one over the frame the caller asked about.
      if (this.view === 'viewport') options.dialogs = top;
      const args: Protocol.Runtime.CallArgument[] = [scope ? { objectId: scope.objectId } : { value: null }];
      children.forEach((child, i) => {
        const objectId = owners[i];
        if (!objectId) return;
        options.frameKeys.push(child.id);
        args.push({ objectId });
      });
      const walk = async () => {
        const reading = callPageScript<CaptureResult>(frame, engine, options, args, remaining());
        // Asked right behind the walk: what it suspects is then known without a round trip more.
        const suspects = frame.showsErrorPage() ? undefined : askSuspects(engine, group, remaining());
        suspects?.catch(() => undefined);
        return { result: { ...(await reading), engine: engine.objectId }, suspects };
      };
      let { result, suspects } = await walk();
      // Closed roots found let the next walk in, where it may suspect more (a declarative closed
      // root inside another). After two such rounds, one scan of the whole document finds the rest.
      for (let round = 1; ; round++) {
        const whole = round > MAX_PROBE_ROUNDS;
        let learned: number;
        try {
          learned = await findClosedRoots(frame, engine, result.scan, remaining, whole ? 'whole' : suspects);
        } catch (error) {
          // The document went away after it was read whole: what was read stands.
          if (isContextGone(error)) return result;
          throw error;
        }
        if (learned === 0) return result;
        ({ result, suspects } = await walk());
        if (whole) return result;
      }
    } finally {
      void session.sendQuiet('Runtime.releaseObjectGroup', { objectGroup: group });
    }
  }

  /** Stitches every captured frame into its parent's text and links each to its Iframe line. */
  async #snapshot(top: Frame): Promise<Snapshot> {
    const topPart = this.#parts.get(top.id);
    if (!topPart) throw new SdkDomProcessError(`The frame ${top.url()} produced no snapshot.`);
    // A scope inside an iframe: its XPaths start with the path of that iframe from the top.
    if (top.parent) topPart.prefix = await this.#framePrefix(top);
    const used: FramePart[] = [];
    const text = this.#stitch(top.id, used);
    return new Snapshot(this.view === 'viewport' ? viewportText(text, used) : text, used, this.page.defaultTimeoutMs);
  }

  #stitch(key: string, used: FramePart[]): string {
    const part = this.#parts.get(key)!;
    used.push(part);
    const { result } = part;
    if (result.frames.length === 0) return result.text;
    const lineOf = new Map<string, number>();
    for (let i = 0; i < result.frames.length; i += 2) lineOf.set(result.frames[i] as string, result.frames[i + 1] as number);
    const out: string[] = [];
    for (const line of result.text.split('\n')) {
      const mark = line.indexOf(FRAME_MARK);
      if (mark < 0 || line.slice(0, mark).trim()) {
        out.push(line);
        continue;
      }
      const childKey = line.slice(mark + 1);
      const child = this.#parts.get(childKey);
      if (!child || used.includes(child)) continue; // left out (detached, failed), or already shown
      child.parent = { part, node: lineOf.get(childKey)! };
      const indent = line.slice(0, mark);
      const childText = this.#stitch(childKey, used);
      if (childText) out.push(indent ? childText.replace(/^/gm, indent) : childText);
    }
    return out.join('\n');
  }

  /** Absolute XPath of a (scoped) frame's iframe element, asked of each ancestor's document. */
  async #framePrefix(frame: Frame): Promise<string> {
    let prefix = '';
    for (let at = frame; at.parent; at = at.parent) {
      const parent = at.parent;
      const engine = await parent.engine(this.#remaining());
      const owner = await at.ownerHandle(this.#remaining());
      const options: CaptureOptions = { mode: 'element', key: '', frame: 0, frameKeys: [], rootLine: false, smallDocument: 0 };
      const path = await callPageScript<string>(parent, engine, options, [{ value: null }, { objectId: owner }], this.#remaining());
      prefix = path + prefix;
    }
    return prefix;
  }
}

/**
 * A child frame worth reading: attached, and showing a document of its own rather than Chrome's
 * error page (an iframe whose document failed to load keeps its Iframe line, with nothing under it).
 */
function readable(frame: Frame): boolean {
  return !frame.isDetached() && !frame.showsErrorPage();
}
