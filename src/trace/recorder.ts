// context.tracing: a trace of the context's calls, in the zip Playwright's trace viewer opens. The
// recorder is a listener on the context's instrumentation seam (util/instrumentation.ts): each call
// is an action (before, after), each model request an attachment of the call that made it, and the
// pages' network, console, errors, dialogs, downloads and screencast come from PageWatch. The
// format is Playwright's trace format, version 10 (docs/tracing.md says what goes where).

import type { TracedContext } from '../driver/contextOptions.js';
import { Page } from '../driver/page.js';
import { TracingStateError, TracingWriteError } from '../errors.js';
import type { Tracing, TracingStartOptions, TracingStopOptions } from '../types.js';
import type { Call, Instrumentation, InstrumentationListener } from '../util/instrumentation.js';
import { describeResult, modelAttachment, paramsOf, type Attachment } from './actions.js';
import { captureFrames, convertSnapshot } from './domSnapshot.js';
import { PageWatch } from './pageWatch.js';
import { scrub } from './redact.js';
import { TraceStore } from './store.js';
import { zip } from './zip.js';

const TRACE_VERSION = 10;
const SNAPSHOT_MS = 5_000;
/** Calls that change or show the page: the ones with Before and After snapshots. */
const SNAPSHOTTED = /^(?:Page\.(?:goto|reload|goBack|goForward|evaluate)|Locator\.|Sdk\.)/;
/** Calls that Chrome carries out in the browser process, not the page: the page may be replaced before it answers a read sent first. */
const NAVIGATIONS = /^Page\.(?:goto|reload|goBack|goForward)$/;

interface Recording {
  store: TraceStore;
  options: TracingStartOptions;
  watches: Map<Page, PageWatch>;
  offPage: () => void;
  offListener: () => void;
  /** Attachments of calls still open (their model requests), by call id. */
  attachments: Map<number, Attachment[]>;
  recorded: Set<number>;
  groups: Array<() => void>;
  secrets: Set<string>;
  started: number;
  /** The snapshots taken and still to be converted and written, in the order taken: stop() waits for them. */
  snapshots: Promise<void>;
}

const now = (): number => performance.now();

export class TraceRecorder implements Tracing, InstrumentationListener {
  #recording: Recording | undefined;
  /** The zip of a stop() whose path could not be written: the next stop() gives it again. */
  #unsaved: Uint8Array | undefined;

  constructor(
    private readonly instrumentation: Instrumentation,
    private readonly context: TracedContext,
  ) {}

  async start(options: TracingStartOptions = {}): Promise<void> {
    if (this.#recording) throw new TracingStateError('tracing.start(): this context already records a trace; stop() it first.');
    const store = new TraceStore();
    const recording: Recording = {
      store,
      options,
      watches: new Map(),
      offPage: () => undefined,
      offListener: () => undefined,
      attachments: new Map(),
      recorded: new Set(),
      groups: [],
      secrets: new Set(),
      started: now(),
      snapshots: Promise.resolve(),
    };
    this.#recording = recording;
    this.#unsaved = undefined;
    const first = this.context.pages()[0];
    store.write({
      version: TRACE_VERSION,
      type: 'context-options',
      origin: 'library',
      browserName: 'chromium',
      platform: typeof process === 'object' ? process.platform : 'browser',
      wallTime: Date.now(),
      monotonicTime: recording.started,
      sdkLanguage: 'javascript',
      title: options.title,
      options: first?.viewport ? { viewport: first.viewport } : {},
    });
    for (const page of this.context.pages()) this.#watch(page);
    recording.offPage = this.context.on('page', (page) => this.#watch(page));
    recording.offListener = this.instrumentation.add(this);
  }

  #watch(page: Page): PageWatch | undefined {
    const recording = this.#recording;
    if (!recording || page.isClosed()) return undefined;
    let watch = recording.watches.get(page);
    if (!watch) {
      watch = new PageWatch(page, recording.store, now, {
        screenshots: !!recording.options.screenshots,
        snapshots: !!recording.options.snapshots,
      });
      recording.watches.set(page, watch);
    }
    return watch;
  }

  async stop(options: TracingStopOptions = {}): Promise<Uint8Array> {
    const recording = this.#recording;
    if (!recording) {
      if (this.#unsaved) return this.#save(this.#unsaved, options.path);
      throw new TracingStateError('tracing.stop(): this context does not record a trace; start() it first.');
    }
    this.#recording = undefined;
    recording.offListener();
    recording.offPage();
    for (const end of recording.groups.splice(0).reverse()) end();
    await Promise.all([...recording.watches.values()].map((watch) => watch.stop()));
    await recording.snapshots;
    const { store, secrets } = recording;
    const text = (value: string) => new TextEncoder().encode(scrub(value, secrets));
    const entries = [
      { name: 'trace.trace', data: text(store.trace.join('\n') + '\n') },
      { name: 'trace.network', data: text(store.network.join('\n') + '\n') },
      // Text resources (attachments, bodies of pages) are scrubbed too; images are kept as they are.
      ...[...store.resources].map(([name, data]) => ({
        name,
        data: /\.(json|txt|dat)$/.test(name) ? text(new TextDecoder().decode(data)) : data,
      })),
    ];
    return this.#save(await zip(entries), options.path);
  }

  async #save(bytes: Uint8Array, path: string | undefined): Promise<Uint8Array> {
    if (path === undefined) return bytes;
    try {
      if (typeof path !== 'string' || !path) throw new Error('the path must be a non-empty string');
      const name = 'node:fs/promises';
      const fs = (await import(/* @vite-ignore */ name)) as typeof import('node:fs/promises');
      await fs.writeFile(path, bytes);
      this.#unsaved = undefined;
      return bytes;
    } catch (error) {
      this.#unsaved = bytes;
      const why = error instanceof Error ? error.message : String(error);
      throw new TracingWriteError(
        `tracing.stop(): could not write the trace to ${JSON.stringify(path)} (${why}). Nothing is lost: the error's \`bytes\` hold the zip, and stop() again (with another path, or none) gives it.`,
        String(path),
        bytes,
        { cause: error },
      );
    }
  }

  async group(name: string): Promise<void> {
    if (!this.#recording) return;
    const { end } = this.instrumentation.open({ api: 'Tracing.group', title: String(name), params: { name } });
    this.#recording.groups.push(end);
  }

  async groupEnd(): Promise<void> {
    this.#recording?.groups.pop()?.();
  }

  async around<T>(call: Call, next: () => Promise<T>): Promise<T> {
    const recording = this.#recording;
    if (!recording) return next();
    if (call.api === 'Model.request') return this.#modelRequest(recording, call, next);
    const { store } = recording;
    const callId = `call@${call.id}`;
    const page = call.page instanceof Page ? call.page : undefined;
    const watch = page && this.#watch(page);
    const [className, method] = call.api.split('.') as [string, string];
    const parent = call.parent && recording.recorded.has(call.parent.id) ? `call@${call.parent.id}` : undefined;
    recording.recorded.add(call.id);
    const attachments: Attachment[] = [];
    recording.attachments.set(call.id, attachments);
    const startTime = now();
    // What fill and type put in is known to be safe to show only once the element is found (a
    // password field's is not): their action begins in the file when they end, at the same time.
    const deferred = call.api === 'Locator.fill' || call.api === 'Locator.type';
    const begin = async () => {
      const { params, large } = paramsOf(call);
      for (const each of large) attachments.push(await each(store));
      store.write({
        type: 'before',
        callId,
        startTime,
        title: call.title,
        class: className,
        method,
        params,
        pageId: watch?.pageId,
        parentId: parent,
      });
    };
    if (!deferred) await begin();
    const snapshots = !!recording.options.snapshots && page && SNAPSHOTTED.test(call.api);
    // The page before the call is only asked for, as the one after it is: the call's own commands
    // reach the page after the read and are answered after it. A navigation is the exception: Chrome
    // starts it without the page, and a read still unanswered when the new document commits is
    // answered by that one (then left out, captureFrames), so a navigation waits for its read.
    if (snapshots) {
      const taken = this.#snapshot(recording, page, watch!.pageId, callId, 'before');
      if (NAVIGATIONS.test(call.api)) await taken;
    }
    return settled(next, async (outcome) => {
      if (snapshots && !page.isClosed()) void this.#snapshot(recording, page, watch!.pageId, callId, 'after');
      if (deferred) await begin();
      const described = await describeResult(store, outcome.result, call);
      attachments.push(...described.attachments);
      recording.attachments.delete(call.id);
      const error = outcome.error;
      store.write({
        type: 'after',
        callId,
        endTime: now(),
        ...(described.result !== undefined ? { result: described.result } : {}),
        ...(error !== undefined ? { error: errorOf(error) } : {}),
        attachments,
      });
    });
  }

  async #modelRequest<T>(recording: Recording, call: Call, next: () => Promise<T>): Promise<T> {
    const started = now();
    for (const secret of (call.details?.secrets as Array<string | undefined> | undefined) ?? []) if (secret) recording.secrets.add(secret);
    const owner = call.parent ? recording.attachments.get(call.parent.id) : undefined;
    return settled(next, async (outcome) => {
      const attachment = await modelAttachment(recording.store, call, outcome, now() - started, (owner?.length ?? 0) + 1);
      if (owner) owner.push(attachment);
      else this.#lone(recording, call, started, attachment, outcome.error);
    });
  }

  /** A model request no recorded call made (one made before the trace started, or outside the Sdk): an action of its own. */
  #lone(recording: Recording, call: Call, started: number, attachment: Attachment, error: unknown): void {
    const callId = `call@${call.id}`;
    recording.store.write({ type: 'before', callId, startTime: started, title: call.title, class: 'Model', method: 'request', params: {} });
    recording.store.write({
      type: 'after',
      callId,
      endTime: now(),
      attachments: [attachment],
      ...(error !== undefined ? { error: errorOf(error) } : {}),
    });
  }

  /** Asks for a snapshot of `page` and queues its conversion and writing (stop() waits for them); resolves once Chrome has answered. */
  #snapshot(recording: Recording, page: Page, pageId: string, callId: string, phase: 'before' | 'after'): Promise<unknown> {
    if (!recording.store.roomy) return Promise.resolve();
    const started = now();
    const wallTime = Date.now();
    const taken = captureFrames(page, SNAPSHOT_MS).then(
      (raw) => ({ raw, collectionTime: now() - started }),
      () => undefined,
    );
    const write = async (): Promise<void> => {
      const capture = await taken;
      if (!capture || !recording.store.roomy) return;
      const { raw, collectionTime } = capture;
      for (const frame of convertSnapshot(raw)) {
        recording.store.write({
          type: 'frame-snapshot',
          snapshot: {
            ...frame,
            callId,
            phase,
            snapshotName: `${phase}@${callId}`,
            pageId,
            timestamp: started,
            wallTime,
            collectionTime,
            resourceOverrides: [],
          },
        });
      }
    };
    // A snapshot that cannot be converted is left out; the ones after it and the trace are not.
    recording.snapshots = recording.snapshots.then(write).catch(() => undefined);
    return taken;
  }
}

interface Outcome {
  result?: unknown;
  error?: unknown;
}

/** Runs `next` and hands what it gave or threw to `record`, which ends before the caller gets the same. */
async function settled<T>(next: () => Promise<T>, record: (outcome: Outcome) => Promise<void>): Promise<T> {
  let outcome: Outcome = {};
  try {
    const result = await next();
    outcome = { result };
    return result;
  } catch (error) {
    outcome = { error };
    throw error;
  } finally {
    await record(outcome);
  }
}

/** A failure as the viewer shows it: the typed class's name, then its message. */
function errorOf(error: unknown): { name: string; message: string; stack?: string } {
  if (error instanceof Error) return { name: error.name, message: `${error.name}: ${error.message}`, stack: error.stack };
  return { name: 'Error', message: String(error) };
}

/** The recorder of each context's `tracing`, for the Sdk's entries (ContextOptions.tracing). */
export function recordTraces(instrumentation: Instrumentation, context: TracedContext): Tracing {
  return new TraceRecorder(instrumentation, context);
}
