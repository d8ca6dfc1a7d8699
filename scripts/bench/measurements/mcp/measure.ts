// Tendril's MCP server against Playwright MCP and chrome-devtools-mcp: what an agent receives from
// each for the same pages. Per server, one connection reads every page in full with the server's
// read tool (Tendril: page_text and each part after it; the peers: their snapshot tool) and searches
// the 10,000-row table with its find tool where it has one; then a fresh connection runs the
// scripted shop task. Servers run one after the other, so one browser at a time is up.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OFFLINE_ARG, PAGES_DIR } from '../../core/config.js';
import { errorText, type ComparisonContext, type Failed } from '../../core/measurement.js';
import { loadCorpus, shortHash, TABLE_ROWS, tablePage } from '../../core/page-sets.js';
import { McpConnection, tokens, type Answer } from './connection.js';
import { dialectOf, type Dialect } from './dialects.js';
import { SERVERS, type McpServerSpec } from './peers.js';

export const MCP_ID = 'mcp';
export const SHOP_PATH = '/shop.html';
/** A row of the table, as its second cell reads. */
export const FIND_QUERY = 'Item number 7777';
/** On top of the bench's usual switches: the corpus's remote resources fail at once, and a frame of another site runs in a process of its own. */
export const EXTRA_ARGS: readonly string[] = [OFFLINE_ARG, '--site-per-process'];

/** A page every server reads in full. */
export interface McpPage {
  /** "table", "shop", or the corpus id. */
  readonly id: string;
  readonly kind: 'table' | 'shop' | 'article';
  readonly label: string;
  readonly url: string;
}

/** What an agent received for one thing asked. */
export interface Received {
  readonly calls: number;
  readonly bytes: number;
  readonly tokens: number;
  /** The largest single answer, in tokens. */
  readonly largestTokens: number;
  /** Summed over the calls. */
  readonly ms: number;
}

export type Outcome = ({ readonly ok: true } & Received) | Failed;
export type TaskOutcome = ({ readonly ok: true; readonly tools: readonly string[] } & Received) | Failed;

export interface ServerRun {
  readonly spec: McpServerSpec;
  /** Full reads by page id. */
  readonly reads: ReadonlyMap<string, Outcome>;
  /** The find on the table; null where the server has no search tool. */
  readonly find: Outcome | null;
  readonly findTool: string | null;
  readonly readTool: string;
  readonly task: TaskOutcome;
}

/** A peer's run as kept between bench runs (core/peer-cache.ts): everything but its spec. */
interface KeptServer {
  readonly reads: Array<[string, Outcome]>;
  readonly find: Outcome | null;
  readonly findTool: string | null;
  readonly readTool: string;
  readonly task: TaskOutcome;
}

export interface McpRun {
  readonly servers: readonly ServerRun[];
  readonly table: McpPage;
  readonly shop: McpPage;
  readonly articles: readonly McpPage[];
  /** Articles in the corpus (before the limit); null when its folder is absent. */
  readonly corpusTotal: number | null;
  /** Which peers' runs were kept from an earlier run, and from when (said under the tables). */
  readonly kept: readonly string[];
  readonly notes: readonly string[];
}

function received(answers: readonly Answer[]): Received {
  const counts = answers.map((a) => tokens(a.text));
  return {
    calls: answers.length,
    bytes: answers.reduce((sum, a) => sum + a.bytes, 0),
    tokens: counts.reduce((sum, n) => sum + n, 0),
    largestTokens: Math.max(0, ...counts),
    ms: answers.reduce((sum, a) => sum + a.ms, 0),
  };
}

/** A read that does not hold what the page surely shows did not read it. */
function checkRead(page: McpPage, answers: readonly Answer[]): void {
  const text = answers.map((a) => a.text).join('\n');
  if (page.kind === 'table' && !text.includes(`Item number ${TABLE_ROWS}`))
    throw new Error(`the read lacks the table's last row, "Item number ${TABLE_ROWS}"`);
  if (page.kind === 'shop' && !text.includes('Watering can')) throw new Error("the read lacks the shop's products");
  if (!text.trim()) throw new Error('the read is empty');
}

function checkFind(answer: Answer): void {
  if (!answer.text.includes(FIND_QUERY)) throw new Error(`the answer lacks "${FIND_QUERY}"`);
  if (answer.text.includes('Item number 7776')) throw new Error('the answer holds other rows too');
}

/** Every page read in full by one server over one connection (replaced after a failure), and the find on the table. */
async function readAll(
  spec: McpServerSpec,
  pages: readonly McpPage[],
  ctx: ComparisonContext,
): Promise<{ reads: Map<string, Outcome>; find: Outcome | null; dialect: Dialect }> {
  const { env, log } = ctx;
  const reads = new Map<string, Outcome>();
  let dialect = dialectOf(spec.id);
  let find: Outcome | null = null;
  let connection: McpConnection | null = null;
  try {
    for (const [i, page] of pages.entries()) {
      try {
        connection ??= await McpConnection.open(spec, env, EXTRA_ARGS);
        await dialect.open(connection, page.url);
        const answers = await dialect.read(connection);
        checkRead(page, answers);
        const got = received(answers);
        reads.set(page.id, { ok: true, ...got });
        if (page.kind !== 'article' || (i + 1) % 5 === 0)
          log(`${MCP_ID} ${spec.label}: ${page.label}: ${got.bytes} B, ${got.tokens} tokens in ${got.calls} call(s)`);
        if (page.kind === 'table' && dialect.findTool) {
          try {
            const answer = await dialect.find(connection, FIND_QUERY);
            checkFind(answer);
            find = { ok: true, ...received([answer]) };
          } catch (err) {
            find = { ok: false, error: errorText(err) };
          }
        }
      } catch (err) {
        reads.set(page.id, { ok: false, error: errorText(err) });
        log(`${MCP_ID} ${spec.label}: ${page.label}: FAILED: ${errorText(err)}${connection?.stderrTail() ?? ''}`);
        // A fresh server for the next page, as the page measurements replace a browser.
        await connection?.close();
        connection = null;
        dialect = dialectOf(spec.id);
      }
    }
  } finally {
    await connection?.close();
  }
  if (dialect.findTool && !find) find = { ok: false, error: 'not tried: the table could not be read' };
  return { reads, find, dialect };
}

/** The shop task on a connection of its own, from the server's start. */
async function runTask(spec: McpServerSpec, shopUrl: string, ctx: ComparisonContext): Promise<TaskOutcome> {
  let connection: McpConnection | null = null;
  try {
    connection = await McpConnection.open(spec, ctx.env, EXTRA_ARGS);
    await dialectOf(spec.id).shop(connection, shopUrl);
    const got = received(connection.calls);
    ctx.log(`${MCP_ID} ${spec.label}: shop task: ${got.calls} calls, ${got.bytes} B, ${got.tokens} tokens`);
    return { ok: true, tools: connection.calls.map((c) => c.tool), ...got };
  } catch (err) {
    const calls = connection?.calls.map((c) => c.tool).join(', ') || 'none';
    ctx.log(`${MCP_ID} ${spec.label}: shop task FAILED: ${errorText(err)} (calls: ${calls})${connection?.stderrTail() ?? ''}`);
    return { ok: false, error: `${errorText(err)} (after ${calls})` };
  } finally {
    await connection?.close();
  }
}

export async function runMcp(ctx: ComparisonContext): Promise<McpRun> {
  const { env, opts, log } = ctx;
  const notes: string[] = [];
  const limits = [opts.mcpPages, opts.corpusLimit].filter((n): n is number => n !== null);
  const corpus = loadCorpus(env.server, limits.length ? Math.min(...limits) : null);
  if (corpus) log(`${MCP_ID}: first ${corpus.pages.length} of ${corpus.total} corpus pages (BENCH_MCP_PAGES, --corpus-limit)`);
  else notes.push(`${MCP_ID}: the corpus folder is missing: real pages skipped`);
  const { id, label, url, version: tableVersion } = tablePage(env.server);
  const table: McpPage = { id, kind: 'table', label, url };
  const shop: McpPage = { id: 'shop', kind: 'shop', label: 'shop page', url: env.server.url(SHOP_PATH) };
  // The cart comes from the other loopback name; a machine where it does not resolve cannot run the task.
  const cart = await fetch(new URL('/cart.html', env.server.otherOrigin), { signal: AbortSignal.timeout(5_000) }).then(
    (r) => r.ok,
    () => false,
  );
  if (!cart) notes.push(`${MCP_ID}: ${env.server.otherOrigin} does not answer here, so the shop's cart cannot load`);
  const articles = (corpus?.pages ?? []).map((p): McpPage => ({ id: p.id, kind: 'article', label: p.label, url: p.url }));
  const pages = [table, shop, ...articles];

  // A peer's whole run is kept while its version, the pages (the table's and the shop's contents,
  // the articles read) and the corpus, Chromium and machine are the same; Tendril always runs.
  const shopFiles = ['shop.html', 'cart.html'].map((name) => readFileSync(path.join(PAGES_DIR, name), 'utf8'));
  const settings = JSON.stringify({ pages: pages.map((p) => p.id), table: tableVersion, shop: shortHash(...shopFiles) });
  const servers: ServerRun[] = [];
  for (const spec of SERVERS) {
    const kept = spec.id === 'tendril' ? undefined : env.peers.lookup<KeptServer>(MCP_ID, spec.id, spec.label, settings, 'run', 'run');
    if (kept) {
      log(`${MCP_ID} ${spec.label}: kept from an earlier run`);
      servers.push({ ...kept, spec, reads: new Map(kept.reads) });
      continue;
    }
    try {
      spec.prepare(log);
    } catch (err) {
      const failed: Failed = { ok: false, error: `could not install: ${errorText(err)}` };
      log(`${MCP_ID} ${spec.label}: ${failed.error}`);
      servers.push({ spec, reads: new Map(pages.map((p) => [p.id, failed])), find: failed, findTool: null, readTool: '', task: failed });
      continue;
    }
    log(`${MCP_ID} ${spec.label}: reading ${pages.length} pages ...`);
    const { reads, find, dialect } = await readAll(spec, pages, ctx);
    const task = await runTask(spec, shop.url, ctx);
    servers.push({ spec, reads, find, findTool: dialect.findTool, readTool: dialect.readTool, task });
    if (spec.id !== 'tendril') {
      const keep: KeptServer = { reads: [...reads], find, findTool: dialect.findTool, readTool: dialect.readTool, task };
      env.peers.store(MCP_ID, spec.id, spec.label, settings, 'run', keep);
    }
  }
  return { servers, table, shop, articles, corpusTotal: corpus?.total ?? null, kept: env.peers.notes(MCP_ID), notes };
}
