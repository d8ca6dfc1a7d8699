// The floor: Tendril's page text against what Chrome itself gives for nothing, the page's
// `document.body.innerText`, asked over the very same CDP session on the very same loaded page.
//
// Tendril only (no Stagehand): the question is how far Tendril's reader is from the cheapest text
// the browser has. The first command after `load` pays for whatever layout and rendering Chrome
// still owes the page, whoever sends it, so each page is loaded twice: once Tendril reads first
// (extract(), then extract() again), once innerText does (evaluate, then again). Which load comes
// first alternates page by page.
import { Sdk } from '../../../../src/index.js';
import { clientOptions, OFFLINE_ARG } from '../../core/config.js';
import { errorText, type ComparisonContext } from '../../core/measurement.js';
import { openPages, type ExtractPage } from '../../core/page-sets.js';
import { formatMs } from '../../core/stats.js';
import { recall, wordCounts, type Recall } from '../extract/recall.js';

export const FLOOR_ID = 'floor';

/** One reader's two reads of one page and what the first one said. */
export interface Reads {
  readonly first: number;
  readonly second: number;
  /** UTF-8 bytes of the first read's text. */
  readonly bytes: number;
  readonly recall: Recall | null;
}

export type FloorPage =
  | { readonly page: ExtractPage; readonly ok: true; readonly tendril: Reads; readonly innerText: Reads }
  | { readonly page: ExtractPage; readonly ok: false; readonly error: string };

export interface FloorRun {
  readonly pages: readonly FloorPage[];
  readonly corpusTotal: number;
  readonly corpusMissing: string | null;
  readonly notes: readonly string[];
}

/** Recall of innerText: its lines carry no ids or roles, so nothing is stripped (contentOf would take "[edit]" lines for ids). */
function plainRecall(truth: string | undefined, text: string): Recall | null {
  if (!truth) return null;
  const found = wordCounts(text);
  let matched = 0;
  let total = 0;
  for (const [word, n] of wordCounts(truth)) {
    total += n;
    matched += Math.min(n, found.get(word) ?? 0);
  }
  return { matched, total };
}

const INNER_TEXT = 'document.body ? document.body.innerText : ""';

/** Null when the corpus is absent (the measurement has nothing else to read). */
export async function runFloor(ctx: ComparisonContext): Promise<FloorRun | null> {
  const { env, opts, log } = ctx;
  const set = await openPages(env.server, { id: FLOOR_ID, table: false, demo: false, corpusLimit: opts.corpusLimit }, log);
  if (!set.corpus) return null;
  const notes: string[] = [];
  const results: FloorPage[] = [];
  const launch = { ...env.launch, args: [...env.launch.args, OFFLINE_ARG] };
  let sdk: Sdk | null = null;
  const fresh = async () => {
    await sdk?.close().catch(() => undefined);
    sdk = new Sdk(clientOptions(launch));
    await sdk.init();
    const s = sdk;
    const page = s.context.pages()[0]!;
    // Untimed warm-up: the first read of a session pays for things no page does again.
    await page.goto(env.server.url('/basic.html'), { waitUntil: 'load' });
    await s.extract();
    await page.sendCDP('Runtime.evaluate', { expression: INNER_TEXT, returnByValue: true });
    return s;
  };
  const deadline = <T>(p: Promise<T>, what: string): Promise<T> =>
    Promise.race([
      p,
      new Promise<never>((_, reject) => {
        const t = setTimeout(() => reject(new Error(`${what} took over ${opts.opTimeoutMs} ms`)), opts.opTimeoutMs);
        void p.finally(() => clearTimeout(t)).catch(() => undefined);
      }),
    ]);
  const timed = async <T>(f: () => Promise<T>, what: string): Promise<{ ms: number; value: T }> => {
    const t0 = performance.now();
    const value = await deadline(f(), what);
    return { ms: performance.now() - t0, value };
  };
  try {
    let s = await fresh();
    for (const [i, page] of set.pages.entries()) {
      const p = s.context.pages()[0]!;
      const tendrilLoad = async (): Promise<Reads> => {
        await deadline(p.goto(page.url, { waitUntil: 'load' }), 'goto');
        const a = await timed(async () => (await s.extract()).pageText, 'extract()');
        const b = await timed(async () => (await s.extract()).pageText, 'extract()');
        return {
          first: a.ms,
          second: b.ms,
          bytes: Buffer.byteLength(a.value),
          recall: page.truth ? recall(wordCounts(page.truth), a.value) : null,
        };
      };
      const innerLoad = async (): Promise<Reads> => {
        await deadline(p.goto(page.url, { waitUntil: 'load' }), 'goto');
        const read = async () => {
          const r = await p.sendCDP<{ result: { value?: unknown } }>('Runtime.evaluate', { expression: INNER_TEXT, returnByValue: true });
          return String(r.result.value ?? '');
        };
        const a = await timed(read, 'innerText');
        const b = await timed(read, 'innerText');
        return { first: a.ms, second: b.ms, bytes: Buffer.byteLength(a.value), recall: plainRecall(page.truth, a.value) };
      };
      try {
        let tendril: Reads;
        let innerText: Reads;
        if (i % 2 === 0) {
          tendril = await tendrilLoad();
          innerText = await innerLoad();
        } else {
          innerText = await innerLoad();
          tendril = await tendrilLoad();
        }
        results.push({ page, ok: true, tendril, innerText });
        log(
          `${FLOOR_ID} ${i + 1}/${set.pages.length} ${page.label}: Tendril ${formatMs(tendril.first)} / ${formatMs(tendril.second)} ms, ` +
            `innerText ${formatMs(innerText.first)} / ${formatMs(innerText.second)} ms`,
        );
      } catch (err) {
        results.push({ page, ok: false, error: errorText(err) });
        log(`${FLOOR_ID} ${page.label}: FAILED: ${errorText(err)}`);
        s = await fresh();
      }
    }
  } finally {
    await (sdk as Sdk | null)?.close().catch(() => undefined);
    set.close();
  }
  if (set.corpusMissing) notes.push(set.corpusMissing);
  return { pages: results, corpusTotal: set.corpus.total, corpusMissing: set.corpusMissing, notes };
}
