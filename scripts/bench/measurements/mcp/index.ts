// Tendril's MCP server against Playwright MCP and chrome-devtools-mcp: bytes and tokens an agent
// receives for a full read and a search, and the tool calls of a scripted task. It runs no library
// of the bench, and its table is a block of its own in docs/benchmarks.md.
import type { Comparison } from '../../core/measurement.js';
import { MCP_ID, runMcp } from './measure.js';
import { DEVTOOLS_MCP_VERSION, PLAYWRIGHT_MCP_VERSION } from './peers.js';
import { MCP_END, MCP_START, mcpFailed, renderMcp } from './report.js';

export const mcp: Comparison = {
  id: MCP_ID,
  usesLibraries: false,
  plan: (o) =>
    `${MCP_ID}: Tendril, Playwright MCP ${PLAYWRIGHT_MCP_VERSION} and chrome-devtools-mcp ${DEVTOOLS_MCP_VERSION} over stdio: full reads of the table, the shop page and ` +
    `${o.mcpPages === null && o.corpusLimit === null ? 'every' : `up to ${Math.min(...[o.mcpPages, o.corpusLimit].filter((n): n is number => n !== null))}`} real pages, a find, the shop task`,
  run: async (ctx) => {
    const run = await runMcp(ctx);
    return {
      notes: run.notes,
      block: { start: MCP_START, end: MCP_END },
      failed: () => mcpFailed(run),
      report: (r) => renderMcp(run, r.envLine),
    };
  },
};
