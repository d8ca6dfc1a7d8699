// The floor: Tendril's page text against what Chrome itself gives for nothing, the page's
// `document.body.innerText`, asked over the very same CDP session on the very same loaded page.
//
// Tendril only (no Stagehand): the question is how far Tendril's reader is from the cheapest text
// the browser has. The first command after `load` pays for whatever layout and rendering Chrome
// still owes the page, whoever sends it, so each reader loads the page anew and reads it twice
// (Tendril: extract(), then extract() again; innerText: evaluate, then again). Which reader loads
// the page first rotates page by page.
//
// The third reader is a bound rather than a reader: a bare walk (BARE_WALK) that does only what
// any reader walking the DOM in page script must do, visit every node and ask each element whether
// it shows, and sends the text nodes' data back as they are. What it costs beyond innerText is
// time no such reader wins back by doing its own work faster.
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
  | { readonly page: ExtractPage; readonly ok: true; readonly tendril: Reads; readonly innerText: Reads; readonly bare: Reads }
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

/**
 * The bound: every node of the document in order (no shadow roots, no frames), one visibility check
 * per element (an element that does not show is skipped with all it holds), and the text nodes'
 * data joined as they are. No roles, names, ids or whitespace handling. It runs as innerText is
 * asked, in the page's own world: an isolated world made for it after `load` would take on the
 * layout the first command pays for, and the page's world, where the page's scripts may have made
 * wrappers already, only makes the bound lower.
 */
const BARE_WALK = `(() => {
  const visible = { visibilityProperty: true };
  const stack = [document.documentElement];
  let out = '';
  while (stack.length) {
    const node = stack.pop();
    if (node.nodeType === 3) out += node.data;
    else if (node.nodeType === 1 && node.checkVisibility(visible)) {
      for (let child = node.lastChild; child; child = child.previousSibling) stack.push(child);
    }
  }
  return out;
})()`;

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
      /** A fresh load of the page, then two timed reads by `read`; recall of the first. */
      const load = async (what: string, read: () => Promise<string>, recallOf: (text: string) => Recall | null): Promise<Reads> => {
        await deadline(p.goto(page.url, { waitUntil: 'load' }), 'goto');
        const a = await timed(read, what);
        const b = await timed(read, what);
        return { first: a.ms, second: b.ms, bytes: Buffer.byteLength(a.value), recall: recallOf(a.value) };
      };
      const evaluate = async (expression: string) => {
        const r = await p.sendCDP<{ result: { value?: unknown } }>('Runtime.evaluate', { expression, returnByValue: true });
        return String(r.result.value ?? '');
      };
      const tendrilLoad = () =>
        load(
          'extract()',
          async () => (await s.extract()).pageText,
          (text) => (page.truth ? recall(wordCounts(page.truth), text) : null),
        );
      const innerLoad = () =>
        load(
          'innerText',
          () => evaluate(INNER_TEXT),
          (text) => plainRecall(page.truth, text),
        );
      const bareLoad = () =>
        load(
          'bare walk',
          () => evaluate(BARE_WALK),
          () => null,
        );
      try {
        // Which reader loads the page first rotates page by page.
        const loads = [tendrilLoad, innerLoad, bareLoad];
        const reads: Reads[] = [];
        for (let k = 0; k < loads.length; k++) {
          const at = (i + k) % loads.length;
          reads[at] = await loads[at]!();
        }
        const [tendril, innerText, bare] = reads as [Reads, Reads, Reads];
        results.push({ page, ok: true, tendril, innerText, bare });
        log(
          `${FLOOR_ID} ${i + 1}/${set.pages.length} ${page.label}: Tendril ${formatMs(tendril.first)} / ${formatMs(tendril.second)} ms, ` +
            `innerText ${formatMs(innerText.first)} / ${formatMs(innerText.second)} ms, bare walk ${formatMs(bare.first)} / ${formatMs(bare.second)} ms`,
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
