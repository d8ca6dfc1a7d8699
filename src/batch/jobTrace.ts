// A job's trace (a worker's --trace-dir): recorded on the job's own context from before its page
// opens to its end, written as <dir>/<job id>.zip. With 'retain-on-failure' only a failed attempt's
// trace is kept; every attempt writes the same file, so a retried job keeps its last attempt's.

import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Context } from '../driver/context.js';
import { withDeadline } from '../util/time.js';

/** When a job's trace is kept: always, or only when the job failed (Playwright's names). */
export type TraceMode = 'on' | 'retain-on-failure';

/** A slow page's last snapshot must not hold the job's slot (or its context) for long. */
const STOP_TIMEOUT_MS = 15_000;

export class JobTrace {
  /** The file once written (undefined: not kept, or it could not be written). */
  written: string | undefined;
  #started = false;

  constructor(
    readonly file: string,
    readonly mode: TraceMode,
    private readonly onError: (error: Error) => void,
  ) {}

  static of(dir: string, mode: TraceMode, jobId: string, onError: (error: Error) => void): JobTrace {
    return new JobTrace(path.resolve(dir, `${jobId}.zip`), mode, onError);
  }

  async start(context: Context): Promise<void> {
    await context.tracing.start({ screenshots: true, snapshots: true, title: `job ${path.basename(this.file, '.zip')}` });
    this.#started = true;
  }

  /** Stops recording; writes the file when the mode keeps it, and removes an earlier attempt's when not. */
  async finish(context: Context, failed: boolean): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    const keep = failed || this.mode === 'on';
    try {
      if (keep) await mkdir(path.dirname(this.file), { recursive: true });
      await withDeadline(context.tracing.stop(keep ? { path: this.file } : {}), STOP_TIMEOUT_MS, "Writing the job's trace");
      if (keep) this.written = this.file;
      else await rm(this.file, { force: true });
    } catch (error) {
      // The job's outcome is its own: a trace that could not be written is reported, not its failure.
      this.onError(error as Error);
    }
  }
}
