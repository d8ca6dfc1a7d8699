// The file of `tendril batch add`, read twice: first every line is checked (holding none of them),
// then, only if all were good, read again in batches for the queue. So a bad line anywhere queues
// nothing, and a file of any size fits (stdin is copied to a private file first, to be read twice).

import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { jobOfLine, type BatchJob } from '../batch/job.js';

/** Jobs per call to the queue's add() in the second reading: what the command holds at once. */
export const LINE_BATCH = 10_000;

export interface CheckedLines {
  /** How many jobs the lines make (blank and # lines make none). */
  jobs: number;
  /** The jobs again, LINE_BATCH at a time. */
  batches(): AsyncGenerator<BatchJob[]>;
  dispose(): Promise<void>;
}

async function* lines(input: Readable): AsyncGenerator<string> {
  yield* createInterface({ input, crlfDelay: Infinity });
}

/** Checks every line of `file` (`-`: stdin); throws InvalidOptionError naming the first bad line. */
export async function checkedLines(file: string, defaults: Partial<BatchJob>, stdin: Readable = process.stdin): Promise<CheckedLines> {
  const name = file === '-' ? 'stdin' : file;
  let copy: { dir: string; path: string } | undefined;
  if (file === '-') {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'tendril-batch-'));
    copy = { dir, path: path.join(dir, 'stdin.txt') };
  }
  const dispose = async () => {
    if (copy) await rm(copy.dir, { recursive: true, force: true });
  };
  try {
    const out = copy && createWriteStream(copy.path, { mode: 0o600 });
    let jobs = 0;
    let line = 0;
    try {
      for await (const text of lines(copy ? stdin : createReadStream(file))) {
        if (jobOfLine(text, defaults, `${name} line ${++line}`)) jobs++;
        if (out && !out.write(`${text}\n`)) await once(out, 'drain');
      }
    } finally {
      if (out) await new Promise((resolve) => out.end(resolve));
    }
    const source = copy?.path ?? file;
    return {
      jobs,
      dispose,
      async *batches() {
        let batch: BatchJob[] = [];
        let line = 0;
        for await (const text of lines(createReadStream(source))) {
          // Checked again: the file may have changed since (the caller says what was added by then).
          const job = jobOfLine(text, defaults, `${name} line ${++line}`);
          if (job) batch.push(job);
          if (batch.length >= LINE_BATCH) yield batch, (batch = []);
        }
        if (batch.length) yield batch;
      },
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
