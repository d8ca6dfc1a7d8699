// Markdown for the mcp measurement: its own block of docs/benchmarks.md (it runs no library, so a
// run of it alone may update it), and stdout.
import { FAILED, failedLine, formatBytes, metaLine, plural, tableHead, tableRow, type Cell } from '../../core/format.js';
import { formatMs, formatRatio, median } from '../../core/stats.js';
import { CART_ITEMS, CART_LINE } from './dialects.js';
import { FIND_QUERY, MCP_ID, SHOP_PATH, type McpRun, type Outcome, type Received, type ServerRun } from './measure.js';

export const MCP_START = '<!-- bench-mcp:start -->';
export const MCP_END = '<!-- bench-mcp:end -->';

const NA: Cell = { text: 'n/a', value: Number.NaN };
const count = (n: number): Cell => ({ text: Math.round(n).toLocaleString('en-US'), value: n });
const bytes = (n: number): Cell => ({ text: formatBytes(n), value: n });
const ms = (n: number): Cell => ({ text: formatMs(n), value: n });

type Pick = (r: Received) => Cell;

/** One row: each server's cell, then Tendril / each peer. */
function row(label: string, cells: readonly Cell[]): string {
  const ratios = cells.slice(1).map((c) => formatRatio(cells[0]!.value, c.value));
  return tableRow([label, ...cells.map((c) => c.text), ...ratios]);
}

const outcomeCell = (o: Outcome | undefined | null, pick: Pick): Cell => (o === null ? NA : !o ? FAILED : o.ok ? pick(o) : FAILED);

/** Articles every server that read any got through, so the totals compare the same pages. */
function pooledArticles(run: McpRun): string[] {
  const reading = run.servers.filter((s) => run.articles.some((p) => s.reads.get(p.id)?.ok));
  return run.articles.filter((p) => reading.length > 0 && reading.every((s) => s.reads.get(p.id)?.ok)).map((p) => p.id);
}

function articleCells(run: McpRun, ids: readonly string[], sum: boolean, pick: (r: Received) => number, show: (n: number) => Cell): Cell[] {
  return run.servers.map((s) => {
    const values = ids
      .map((id) => s.reads.get(id))
      .filter((o): o is Extract<Outcome, { ok: true }> => o?.ok === true)
      .map(pick);
    if (values.length < ids.length || !values.length) return FAILED;
    return show(sum ? values.reduce((a, b) => a + b, 0) : median(values));
  });
}

export function renderMcp(run: McpRun, envLine: string): string {
  const { servers } = run;
  const labels = servers.map((s) => s.spec.label);
  const peers = servers.slice(1).map((s) => `ratio / ${s.spec.label.replace(/ [\d.]+$/, '')}`);
  const lines = [...tableHead('MCP servers: what an agent receives', [...labels, ...peers])];
  const read = (id: string, pick: Pick) => servers.map((s) => outcomeCell(s.reads.get(id), pick));

  const pooled = pooledArticles(run);
  if (run.articles.length) {
    const n = `${pooled.length} of ${run.articles.length} real pages`;
    lines.push(
      row(
        `${n}: full read, median bytes`,
        articleCells(run, pooled, false, (r) => r.bytes, bytes),
      ),
      row(
        `${n}: full read, total bytes`,
        articleCells(run, pooled, true, (r) => r.bytes, bytes),
      ),
      row(
        `${n}: full read, median tokens`,
        articleCells(run, pooled, false, (r) => r.tokens, count),
      ),
      row(
        `${n}: full read, total tokens`,
        articleCells(run, pooled, true, (r) => r.tokens, count),
      ),
      row(
        `${n}: tool calls for all the reads`,
        articleCells(run, pooled, true, (r) => r.calls, count),
      ),
    );
  }
  const t = run.table.label;
  lines.push(
    row(
      `${t}: full read, bytes`,
      read(run.table.id, (r) => bytes(r.bytes)),
    ),
    row(
      `${t}: full read, tokens`,
      read(run.table.id, (r) => count(r.tokens)),
    ),
    row(
      `${t}: tool calls for the full read`,
      read(run.table.id, (r) => count(r.calls)),
    ),
    row(
      `${t}: largest single answer (tokens)`,
      read(run.table.id, (r) => count(r.largestTokens)),
    ),
    row(
      `${t}: full read, time (ms, all its calls, one run)`,
      read(run.table.id, (r) => ms(r.ms)),
    ),
    row(
      `${t}: find "${FIND_QUERY}", bytes`,
      servers.map((s) => outcomeCell(s.find, (r) => bytes(r.bytes))),
    ),
    row(
      `${t}: find "${FIND_QUERY}", tokens`,
      servers.map((s) => outcomeCell(s.find, (r) => count(r.tokens))),
    ),
    row(
      `${t}: find "${FIND_QUERY}", time (ms, one call)`,
      servers.map((s) => outcomeCell(s.find, (r) => ms(r.ms))),
    ),
    row(
      'shop page: full read, bytes',
      read(run.shop.id, (r) => bytes(r.bytes)),
    ),
    row(
      'shop page: full read, tokens',
      read(run.shop.id, (r) => count(r.tokens)),
    ),
    row(
      'shop task (open, add two items, open the cart, a cross-origin iframe): tool calls',
      servers.map((s) => outcomeCell(s.task, (r) => count(r.calls))),
    ),
    row(
      'shop task: bytes received',
      servers.map((s) => outcomeCell(s.task, (r) => bytes(r.bytes))),
    ),
    row(
      'shop task: tokens received',
      servers.map((s) => outcomeCell(s.task, (r) => count(r.tokens))),
    ),
    '',
  );

  lines.push(
    `Tools: a full read is ${servers.map(readTools).join('; ')}. Find: ${servers.map((s) => `${s.spec.label} ${s.findTool ? `\`${s.findTool}\`` : 'has no search tool (n/a)'}`).join('; ')}.`,
    '',
  );
  lines.push(
    `Shop task, the calls each agent made: ${servers.map((s) => `${s.spec.label}: ${s.task.ok ? s.task.tools.map((tool) => `\`${tool}\``).join(', ') : 'failed'}`).join('; ')}.`,
    '',
  );
  for (const s of servers) for (const failure of failures(run, s)) lines.push(failure, '');
  for (const kept of run.kept) lines.push(kept, '');
  lines.push(
    metaLine([
      envLine,
      `pages: the bench's ${t} (\`${run.table.url.replace(/^https?:\/\/[^/]+/, '')}\`), the shop page (\`scripts/bench/pages${SHOP_PATH}\`) and the first ${plural(run.articles.length, 'real page')}${run.corpusTotal === null ? ' (corpus missing)' : ` of ${run.corpusTotal}`} of the corpus; each opened untimed, then read once`,
      "every server started by the bench over stdio (the official MCP client, `@modelcontextprotocol/client`) with this Chromium, headless, a throwaway profile, `--no-sandbox` and the bench's switches plus `--site-per-process` and the offline `--host-resolver-rules`",
      'bytes = UTF-8 bytes of the text parts of each tool result; tokens = o200k_base (js-tiktoken) of that text; a read in parts counts every part',
      `shop task: a fresh server; the agent reads the page, clicks the first two Add buttons and View cart by the ids its read gave, and must then see "${CART_LINE}" with ${CART_ITEMS.join(' and ')} in the cart, an iframe from the other loopback origin; where a tool can send the page text back with an action (Tendril's \`include_page_text\`, chrome-devtools-mcp's \`includeSnapshot\`), the agent asks for it rather than make one more call`,
      'ratio = Tendril / that server (below 1: Tendril sends less)',
      `\`npm run bench -- --only ${MCP_ID}\``,
    ]),
  );
  return `${lines.join('\n')}\n`;
}

function readTools(s: ServerRun): string {
  if (s.spec.id === 'tendril')
    return `${s.spec.label} \`page_text\` and, for a long page, \`page_text { cursor }\` for each further part (at most 40,000 characters each, its default)`;
  return `${s.spec.label} \`${s.readTool || '?'}\``;
}

function failures(run: McpRun, s: ServerRun): string[] {
  const out: string[] = [];
  const pages = [run.table, run.shop, ...run.articles];
  const failed = pages.filter((p) => s.reads.get(p.id)?.ok === false);
  if (failed.length) {
    const first = s.reads.get(failed[0]!.id) as { error: string };
    out.push(
      failedLine(
        s.spec.label,
        `to read ${plural(failed.length, 'page')} (${failed
          .slice(0, 5)
          .map((p) => `\`${p.id.slice(0, 12)}\``)
          .join(', ')}${failed.length > 5 ? ', …' : ''}); the first: ${first.error}`,
      ),
    );
  }
  if (s.find && !s.find.ok) out.push(failedLine(`${s.spec.label} find`, s.find.error));
  if (!s.task.ok) out.push(failedLine(`${s.spec.label} shop task`, s.task.error));
  return out;
}

/** Whether the run fails: Tendril could not read a page, search or do the task (a peer's failures are shown, and do not count). */
export function mcpFailed(run: McpRun): boolean {
  return run.servers.some(
    (s) => s.spec.id === 'tendril' && ([...s.reads.values()].some((o) => !o.ok) || (s.find !== null && !s.find.ok) || !s.task.ok),
  );
}
