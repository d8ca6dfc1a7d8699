// The renderer's CPU time of a read, Tendril's extract() against innerText (issue 37), from a trace.
//
//   node --import tsx scripts/bench/read-cpu.ts 40        # the first 40 corpus articles (sorted ids)
//   node --import tsx scripts/bench/read-cpu.ts 10 20     # 10 articles from the 20th on
//
// The floor measurement (`npm run bench -- --only floor`) times reads on the wall clock, as a user
// waits for them; on a machine that runs other work besides, most of that time is spent waiting for
// a core. This script counts what the page's renderer itself spends: the thread time (tracing's
// `tdur`) of the tasks its main thread runs between two marks placed around each read, so a busy
// machine stretches it little. As in the floor measurement each article is loaded twice, once
// Tendril reading first and once innerText, which comes first alternating by article; Tendril reads
// three times, to show how the cost falls as V8 warms up the reader's code in the document's world.
// It counts only the renderer's main thread: V8's compiler threads, the browser process and this
// process (JSON, the protocol) are not in it. Nothing here is a bench result; it tells where the
// time goes.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Sdk, type Page } from '../../src/index.js';
import { clientOptions, CORPUS_DIR, launchSpec, OFFLINE_ARG, PAGES_DIR } from './core/config.js';
import { startServer } from './core/server.js';

interface TraceEvent {
  readonly name: string;
  readonly cat: string;
  readonly ph: string;
  readonly ts: number;
  readonly dur?: number;
  readonly tdur?: number;
  readonly pid: number;
  readonly tid: number;
  readonly args?: { name?: string };
}

const INNER_TEXT = 'document.body ? document.body.innerText : ""';
const READS = ['innerText 1', 'innerText 2', 'Tendril 1', 'Tendril 2', 'Tendril 3'] as const;
type Read = (typeof READS)[number];

/** Marks around operations and, once the trace is in, the main thread's CPU time between each pair. */
class Meter {
  readonly #events: TraceEvent[] = [];
  readonly #marks: Array<{ id: string; read: Read; article: number }> = [];
  /** Articles not read whole (a load that failed): left out on both sides. */
  readonly failed = new Set<number>();
  article = 0;
  #complete: Promise<void> | undefined;

  constructor(private readonly page: Page) {}

  async start(): Promise<void> {
    const { session } = this.page;
    session.on('Tracing.dataCollected', ({ value }) => this.#events.push(...(value as unknown as TraceEvent[])));
    this.#complete = new Promise((resolve) => session.on('Tracing.tracingComplete', () => resolve()));
    await this.page.sendCDP('Tracing.start', {
      transferMode: 'ReportEvents',
      traceConfig: { includedCategories: ['toplevel', 'blink.user_timing'] },
    });
  }

  async time(read: Read, f: () => Promise<unknown>): Promise<void> {
    const id = `tendril-cpu-${this.#marks.length}`;
    this.#marks.push({ id, read, article: this.article });
    await this.page.sendCDP('Runtime.evaluate', { expression: `performance.mark('${id}:start')` });
    await f();
    await this.page.sendCDP('Runtime.evaluate', { expression: `performance.mark('${id}:end')` });
  }

  /** CPU ms by read, summed over the operations timed. */
  async stop(): Promise<Map<Read, number[]>> {
    await this.page.sendCDP('Tracing.end');
    await this.#complete;
    const main = new Set<string>();
    for (const e of this.#events)
      if (e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain') main.add(`${e.pid}:${e.tid}`);
    const marks = new Map<string, TraceEvent>();
    for (const e of this.#events) if (e.cat.includes('user_timing') && !marks.has(e.name)) marks.set(e.name, e);
    const tasks = this.#events.filter((e) => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && main.has(`${e.pid}:${e.tid}`));
    const out = new Map<Read, number[]>();
    for (const { id, read, article } of this.#marks) {
      if (this.failed.has(article)) continue;
      const start = marks.get(`${id}:start`);
      const end = marks.get(`${id}:end`);
      if (!start || !end) continue;
      let us = 0;
      for (const t of tasks) if (t.pid === start.pid && t.ts > start.ts && t.ts + (t.dur ?? 0) < end.ts) us += t.tdur ?? 0;
      out.set(read, [...(out.get(read) ?? []), us / 1000]);
    }
    return out;
  }
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 20);
  const from = Number(process.argv[3] ?? 0);
  const ids = readdirSync(path.join(CORPUS_DIR, 'html'))
    .filter((n) => n.endsWith('.html.gz'))
    .map((n) => n.slice(0, -'.html.gz'.length))
    .sort()
    .slice(from, from + count);
  const server = await startServer([
    { prefix: '/corpus/', dir: CORPUS_DIR },
    { prefix: '/', dir: PAGES_DIR },
  ]);
  const launch = launchSpec();
  const sdk = new Sdk(clientOptions({ ...launch, args: [...launch.args, OFFLINE_ARG] }));
  let cpu: Map<Read, number[]>;
  let counted = ids.length;
  try {
    await sdk.init();
    const page = sdk.context.pages()[0]!;
    await page.goto(server.url('/basic.html'), { waitUntil: 'load' });
    await sdk.extract();
    const meter = new Meter(page);
    await meter.start();
    const innerText = async () => {
      await meter.time('innerText 1', () => page.sendCDP('Runtime.evaluate', { expression: INNER_TEXT, returnByValue: true }));
      await meter.time('innerText 2', () => page.sendCDP('Runtime.evaluate', { expression: INNER_TEXT, returnByValue: true }));
    };
    const tendril = async () => {
      for (const read of ['Tendril 1', 'Tendril 2', 'Tendril 3'] as const) await meter.time(read, () => sdk.extract());
    };
    for (const [i, id] of ids.entries()) {
      const url = server.url(`/corpus/html/${id}.html`);
      meter.article = i;
      try {
        for (const reader of i % 2 === 0 ? [tendril, innerText] : [innerText, tendril]) {
          await page.goto(url, { waitUntil: 'load' });
          await reader();
        }
        process.stdout.write(`${i + 1}/${ids.length} ${id.slice(0, 12)}\n`);
      } catch (error) {
        meter.failed.add(i);
        process.stdout.write(
          `${i + 1}/${ids.length} ${id.slice(0, 12)} left out: ${error instanceof Error ? error.message : String(error)}\n`,
        );
      }
    }
    cpu = await meter.stop();
    counted -= meter.failed.size;
  } finally {
    await sdk.close().catch(() => undefined);
    await server.close();
  }
  const total = (read: Read) => (cpu.get(read) ?? []).reduce((a, b) => a + b, 0);
  const inner = { first: total('innerText 1'), second: total('innerText 2') };
  process.stdout.write(`\nrenderer main-thread CPU over ${counted} articles (ms, and against innerText's read of the same rank):\n`);
  for (const read of READS) {
    const against = read === 'innerText 1' || read === 'Tendril 1' ? inner.first : inner.second;
    const ratio = read.startsWith('Tendril') ? ` (${(total(read) / against).toFixed(1)}x)` : '';
    process.stdout.write(`  ${read}: ${total(read).toFixed(1)}${ratio}\n`);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
