// What the opener of a Context (env/) gives it: the parts that differ between Node, a hosted server
// and an extension are passed in here rather than imported by the driver.

import { TracingStateError } from '../errors.js';
import type { Tracing, Viewport } from '../types.js';
import type { Instrumentation } from '../util/instrumentation.js';
import type { CheckedPolicy } from '../util/domainPolicy.js';
import type { DownloadPlace, watchDownloads } from './download.js';
import type { ReadTextFile } from './initScripts.js';
import type { Page } from './page.js';
import type { StorageKeeper } from './storageState.js';

/** What a recorder follows of a context: its pages, now and later. */
export interface TracedContext {
  pages(): Page[];
  on(event: 'page', handler: (page: Page) => void): () => void;
}

export interface ContextOptions {
  viewport?: Viewport;
  timeoutMs: number;
  /**
   * Where downloads go: a folder, or `{ folder: undefined }` for the browser's own choice (reported
   * all the same), and the watcher that reports them: given by the opener, so that a build whose
   * browser cannot report downloads (an extension: Browser.* is refused through chrome.debugger)
   * carries none of it. Absent: downloads are none of this context's business (a hosted browser).
   */
  downloads?: DownloadPlace & { watch: typeof watchDownloads };
  /** The hosts pages may reach (checked); absent: every host, and no cost at all. */
  policy?: CheckedPolicy;
  /**
   * The closed-root watch's page script (src/injected/watch), added to every document the pages
   * make: given by the Node opener. Absent (the extension's build): closed roots are found by
   * scanning, as in documents older than the session.
   */
  closedRootWatch?: string;
  /**
   * An expression installed beside each frame's selector engine, as its `read`: the snapshot
   * layer's page script (READER_SOURCE), given by whoever opens the context since the driver does
   * not know that layer. Compiled when a navigation prepares the frame, not by the first read after
   * `load`, and sent once per document rather than with every read.
   */
  reader: string;
  /** Reads a file for addInitScript({ path }): given where there are files (Node), absent in an extension. */
  readFile?: ReadTextFile;
  /**
   * Pages reach the web through a hosted server's egress proxy (src/hosted/server/egress.ts), whose
   * own answers for a site that failed only their headers tell apart (upstream.ts): every goto
   * then has the Network domain on. Given by the hosted openers.
   */
  egressProxy?: boolean;
  /** The isolated browser context (isolation.ts) this Context is: only its targets, its pages, disposed on close(); absent: the rest. */
  browserContextId?: string;
  /** Storage states (storageState.ts), given by the Node and hosted openers. */
  storage?: typeof StorageKeeper;
  /**
   * @internal Makes the context's `tracing` from its seam: given by the Sdk (the recorder, src/trace/, lives
   * above the driver, which does not know it); absent: `tracing` refuses to start.
   */
  tracing?: (instrumentation: Instrumentation, context: TracedContext) => Tracing;
  /** The class of this context's pages: the entry's (the Stagehand entry's adds its shapes); absent: Page. */
  pageClass?: typeof Page;
}

/** The tracing of a context made without a recorder (none of the Sdk's are). */
export const noTracing: Tracing = {
  start: () => Promise.reject(new TracingStateError('This context cannot record a trace: it was not opened by an Sdk.')),
  stop: () => Promise.reject(new TracingStateError('This context is not recording a trace.')),
  group: () => Promise.resolve(),
  groupEnd: () => Promise.resolve(),
};
