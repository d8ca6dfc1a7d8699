// The pages the page measurements (extract, extract-llm, real-pages) read: a generated 10,000-row
// table, the demo page and the real article corpus (read in place).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CORPUS_DIR } from './config.js';
import { errorText } from './measurement.js';
import type { BenchServer } from './server.js';

export interface ExtractPage {
  /** "table", "demo", or the corpus id (the file name without `.html.gz`). */
  readonly id: string;
  readonly kind: 'table' | 'demo' | 'article';
  readonly label: string;
  readonly url: string;
  /** Text whose words are looked for in each library's pageText (recall); none for the demo. */
  readonly truth?: string;
  /** Where an article was originally published (its ground-truth `url`). */
  readonly source?: string;
  /**
   * The bench's own pages (table, demo): a hash of what they serve, so a peer's kept result on one
   * (core/peer-cache.ts) is reused only while the page is the same. Articles have the corpus hash.
   */
  readonly version?: string;
}

/** 16 hex digits of sha256 over `parts`: a version for pages kept results depend on. */
export const shortHash = (...parts: string[]): string => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex').slice(0, 16);
};

export const TABLE_ROWS = 10_000;
export const TABLE_PATH = '/generated/table.html';

function tableRow(i: number): string[] {
  // Deterministic, varied prices so the text is not one repeated string.
  return [String(i), `Item number ${i}`, 'details', `$${(((i * 7919) % 100_000) / 100).toFixed(2)}`];
}

const TABLE_HEAD = ['#', 'Item', 'Link', 'Price'];
const TABLE_TITLE = `Inventory: ${TABLE_ROWS.toLocaleString('en-US')} items`;

/** The table page's HTML; built when first served, so the bench carries no large fixture. */
export function tableHtml(): string {
  const rows: string[] = [];
  for (let i = 1; i <= TABLE_ROWS; i++) {
    const [n, name, link, price] = tableRow(i);
    rows.push(`<tr><td>${n}</td><td>${name}</td><td><a href="/item/${i}">${link}</a></td><td>${price}</td></tr>`);
  }
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>Tendril bench: 10,000-row table</title></head>',
    `<body><h1>${TABLE_TITLE}</h1>`,
    `<table><thead><tr>${TABLE_HEAD.map((h) => `<th>${h}</th>`).join('')}</tr></thead>`,
    `<tbody>\n${rows.join('\n')}\n</tbody></table></body></html>`,
  ].join('\n');
}

function tableText(): string {
  const parts = [TABLE_TITLE, ...TABLE_HEAD];
  for (let i = 1; i <= TABLE_ROWS; i++) parts.push(...tableRow(i));
  return parts.join(' ');
}

/** The table's version, hashed once: its HTML is 10,000 rows built in memory. */
let tableVersion: string | undefined;

export function tablePage(server: BenchServer): ExtractPage {
  return {
    id: 'table',
    kind: 'table',
    label: `${TABLE_ROWS.toLocaleString('en-US')}-row table`,
    url: server.url(TABLE_PATH),
    truth: tableText(),
    version: (tableVersion ??= shortHash(tableHtml())),
  };
}

/**
 * One phrase from each part of the demo page, to show which parts a library's text reaches (the
 * demo has no word-level ground truth).
 */
export const DEMO_PARTS: ReadonlyArray<readonly [part: string, phrase: string]> = [
  ['page', 'Seedlings and tools'],
  ['open shadow root', 'Add to cart'],
  ['closed shadow root', 'Sturdy seedlings'],
  ['same-origin iframe', 'In stock'],
  ['cross-origin iframe', 'Partner offer'],
];

/** The demo's parts whose phrase does not occur in `text`. */
export function missingDemoParts(text: string): string[] {
  const squashed = text.replace(/\s+/g, ' ').toLowerCase();
  return DEMO_PARTS.filter(([, phrase]) => !squashed.includes(phrase.toLowerCase())).map(([part]) => part);
}

export interface DemoServer {
  readonly page: ExtractPage;
  close(): void;
}

/**
 * Serves the demo exactly as `npm run demo` does (two loopback origins, so its partner iframe is
 * cross-origin), by importing its server; loaded lazily because demo.ts pulls in src/.
 */
export async function startDemo(): Promise<DemoServer> {
  const { serveDemo, DEMO_DIR } = await import('../../demo.js');
  const demo = await serveDemo();
  const files = readdirSync(DEMO_DIR).sort();
  const version = shortHash(...files.flatMap((name) => [name, readFileSync(path.join(DEMO_DIR, name), 'utf8')]));
  return {
    page: { id: 'demo', kind: 'demo', label: 'demo page', url: demo.url, version },
    close: demo.close,
  };
}

export interface Corpus {
  /** Articles found (before any limit). */
  readonly total: number;
  readonly pages: ExtractPage[];
}

interface GroundTruth {
  readonly articleBody?: string;
  readonly url?: string;
}

/** The corpus articles in id order, or null when the folder is absent. */
export function loadCorpus(server: BenchServer, limit: number | null): Corpus | null {
  const htmlDir = path.join(CORPUS_DIR, 'html');
  if (!existsSync(htmlDir)) return null;
  const truthFile = path.join(CORPUS_DIR, 'ground-truth.json');
  const truth = existsSync(truthFile) ? (JSON.parse(readFileSync(truthFile, 'utf8')) as Record<string, GroundTruth>) : {};
  const ids = readdirSync(htmlDir)
    .filter((name) => name.endsWith('.html.gz'))
    .map((name) => name.slice(0, -'.html.gz'.length))
    .sort();
  const pages = ids.slice(0, limit ?? ids.length).map(
    (id): ExtractPage => ({
      id,
      kind: 'article',
      label: `article ${id.slice(0, 12)}`,
      // The server mounts CORPUS_DIR at /corpus/ and serves x.html from x.html.gz.
      url: server.url(`/corpus/html/${id}.html`),
      truth: truth[id]?.articleBody,
      source: truth[id]?.url,
    }),
  );
  return { total: ids.length, pages };
}

/** The pages one measurement runs on, in order. */
export interface PageSet {
  readonly pages: readonly ExtractPage[];
  /** The corpus as found (before the limit); null when its folder is absent. */
  readonly corpus: Corpus | null;
  /** Why the corpus is absent (already logged), for the notes under the table; else null. */
  readonly corpusMissing: string | null;
  /** Why the demo page could not be served (it is then not in `pages`), or null (also when not asked for). */
  readonly demoError: string | null;
  /** Where the demo page is, or would have been, in `pages`. */
  readonly demoIndex: number;
  /** Stops the demo's server. */
  close(): void;
}

/** Stands in for the demo page in results when it could not be served. */
export const UNSERVED_DEMO: ExtractPage = { id: 'demo', kind: 'demo', label: 'demo page', url: '' };

/** The 10,000-row table alone, as a page set. */
export function tableOnly(server: BenchServer): PageSet {
  return { pages: [tablePage(server)], corpus: null, corpusMissing: null, demoError: null, demoIndex: 1, close: () => undefined };
}

/**
 * The table page (when `table`), the demo page (when `demo`), then the first `corpusLimit` corpus
 * articles. A demo that cannot be served or a missing corpus is logged as `${id}: ...` and the rest
 * still runs.
 */
export async function openPages(
  server: BenchServer,
  o: { readonly id: string; readonly table: boolean; readonly demo: boolean; readonly corpusLimit: number | null },
  log: (line: string) => void,
): Promise<PageSet> {
  const pages: ExtractPage[] = o.table ? [tablePage(server)] : [];
  const demoIndex = pages.length;
  let demo: DemoServer | null = null;
  let demoError: string | null = null;
  if (o.demo) {
    try {
      demo = await startDemo();
      pages.push(demo.page);
    } catch (err) {
      demoError = `could not serve the demo page: ${errorText(err)}`;
      log(`${o.id}: ${demoError}`);
    }
  }
  const corpus = loadCorpus(server, o.corpusLimit);
  let corpusMissing: string | null = null;
  if (corpus) {
    pages.push(...corpus.pages);
  } else {
    corpusMissing = `corpus folder ${CORPUS_DIR} is missing: real pages skipped`;
    log(`${o.id}: ${corpusMissing}`);
  }
  return { pages, corpus, corpusMissing, demoError, demoIndex, close: () => demo?.close() };
}

/** Where a page comes from: an article's original host, or "generated / local". */
export function host({ page }: { readonly page: ExtractPage }): string {
  if (!page.source) return page.kind === 'article' ? '' : 'generated / local';
  try {
    return new URL(page.source).host;
  } catch {
    return '';
  }
}
