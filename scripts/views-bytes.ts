// Bytes of each page text view against the full text, on the bench's 10,000-row table and the first
// few corpus articles (read in place): `node --import tsx scripts/views-bytes.ts [articles=10]`.
// Prints a Markdown table. The delta is the one after a single text change (one node's text
// replaced through the page), which is what an agent pays after an action that changes one line.

import { existsSync } from 'node:fs';
import { Sdk } from '../src/index.js';
import { CORPUS_DIR, OFFLINE_ARG, PAGES_DIR, launchSpec } from './bench/core/config.js';
import { loadCorpus, tableHtml, tablePage, TABLE_PATH, type ExtractPage } from './bench/core/page-sets.js';
import { startServer, type Mount } from './bench/core/server.js';

const articles = Number(process.argv[2] ?? 10);

interface Row {
  label: string;
  full: number;
  viewport: number;
  interactive: number;
  delta: number;
}

async function measure(sdk: Sdk, page: ExtractPage): Promise<Row> {
  const tab = sdk.context.pages()[0]!;
  await tab.goto(page.url, { waitUntil: 'load', timeoutMs: 60_000 });
  const bytes = async (view: 'full' | 'viewport' | 'interactive' | 'delta') =>
    Buffer.byteLength((await sdk.extract({ view, timeout: 60_000 })).pageText);
  const full = await bytes('full');
  const viewport = await bytes('viewport');
  const interactive = await bytes('interactive');
  // One change: the last non-blank text node of the body (a table cell, an article's last words).
  await tab.evaluate(() => {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let last: Text | null = null;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) if ((node as Text).data.trim()) last = node as Text;
    if (last) last.data = `${last.data.trim()} (changed)`;
  });
  const delta = await bytes('delta');
  return { label: page.label, full, viewport, interactive, delta };
}

async function main(): Promise<void> {
  const mounts: Mount[] = [{ prefix: '/', dir: PAGES_DIR }];
  if (existsSync(CORPUS_DIR)) mounts.push({ prefix: '/corpus/', dir: CORPUS_DIR });
  const server = await startServer(mounts, new Map([[TABLE_PATH, tableHtml]]));
  const launch = launchSpec();
  const sdk = new Sdk({
    verbose: 0,
    disablePino: true,
    localBrowserLaunchOptions: { executablePath: launch.executablePath, args: [...launch.args, OFFLINE_ARG] },
  });
  const rows: Row[] = [];
  try {
    await sdk.init();
    const pages = [tablePage(server), ...(loadCorpus(server, articles)?.pages ?? [])];
    for (const page of pages) {
      try {
        rows.push(await measure(sdk, page));
      } catch (error) {
        console.error(`${page.label}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  } finally {
    await sdk.close();
    await server.close();
  }
  const ratio = (part: number, full: number) => (full ? (part / full).toFixed(3) : '-');
  const kb = (n: number) => (n / 1024).toFixed(1);
  console.log('| page | full (KB) | viewport | interactive | delta after one change |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.label} | ${kb(row.full)} | ${ratio(row.viewport, row.full)} | ${ratio(row.interactive, row.full)} | ${ratio(row.delta, row.full)} |`,
    );
  }
  const articlesOnly = rows.filter((row) => row.label.startsWith('article'));
  if (articlesOnly.length) {
    const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
    const of = (key: 'viewport' | 'interactive' | 'delta') => median(articlesOnly.map((row) => row[key] / row.full)).toFixed(3);
    console.log(
      `| median of ${articlesOnly.length} articles | ${kb(median(articlesOnly.map((row) => row.full)))} | ${of('viewport')} | ${of('interactive')} | ${of('delta')} |`,
    );
  }
}

await main();
