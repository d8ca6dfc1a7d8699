// The bench's options: `--only`, `--corpus-limit`, `--update-readme`, `--verbose` and the BENCH_*
// variables (scripts/bench/README.md lists them all).

/** What `--only` takes besides measurement ids. */
export const LIBRARY_IDS: readonly string[] = ['tendril', 'stagehand', 'stagehand4'];

function positiveInt(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`expected a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

export interface BenchOptions {
  readonly iterations: number;
  readonly warmups: number;
  readonly updateReadme: boolean;
  /** Library ids to run (default: all). */
  readonly only: readonly string[] | null;
  /** Measurement ids to run (default: all); `--only` takes both kinds of id. */
  readonly measurements: readonly string[] | null;
  /** Upper bound for any single library operation before it counts as hung. */
  readonly opTimeoutMs: number;
  readonly verbose: boolean;
  /** Timed extract() iterations on the generated table and the demo page. */
  readonly extractIterations: number;
  /** Timed extract() iterations per corpus page (Stagehand takes seconds per page). */
  readonly corpusIterations: number;
  /** Use only the first N corpus pages (null: all). */
  readonly corpusLimit: number | null;
  /** One goto + extract() on one page slower than this counts as a failure of that page. */
  readonly pageDeadlineMs: number;
  /** extract-llm: corpus articles to run (null: all); `--corpus-limit` lowers it further. */
  readonly llmPages: number | null;
  /** act: timed act(action) calls per library (after `warmups` untimed). */
  readonly actIterations: number;
  /** mcp: corpus articles each MCP server reads (null: all); `--corpus-limit` lowers it further. */
  readonly mcpPages: number | null;
}

const ARGS_HELP = '--update-readme, --verbose, --only=<library|measurement>[,...], --corpus-limit=N';

export function parseOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  let only: string[] | null = env.BENCH_ONLY ? env.BENCH_ONLY.split(',').map((s) => s.trim()) : null;
  let updateReadme = env.BENCH_UPDATE_README === '1' || env.BENCH_UPDATE_README === 'true';
  let verbose = env.BENCH_VERBOSE === '1';
  let corpusLimit = env.BENCH_CORPUS_LIMIT || undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    // Both `--flag=value` and `--flag value`.
    const value = (name: string): string | undefined => {
      if (arg.startsWith(`${name}=`)) return arg.slice(name.length + 1);
      if (arg !== name) return undefined;
      const next = argv[++i];
      if (next === undefined) throw new Error(`${name} needs a value`);
      return next;
    };
    let v: string | undefined;
    if (arg === '--update-readme') updateReadme = true;
    else if (arg === '--verbose') verbose = true;
    else if ((v = value('--only')) !== undefined) only = v.split(',').map((s) => s.trim());
    else if ((v = value('--corpus-limit')) !== undefined) corpusLimit = v;
    else throw new Error(`unknown argument ${arg} (known: ${ARGS_HELP})`);
  }
  const libs = only?.filter((id) => LIBRARY_IDS.includes(id)) ?? [];
  const measurements = only?.filter((id) => !LIBRARY_IDS.includes(id)) ?? [];
  return {
    iterations: positiveInt(env.BENCH_ITERATIONS, 7),
    warmups: env.BENCH_WARMUPS === '0' ? 0 : positiveInt(env.BENCH_WARMUPS, 1),
    updateReadme,
    only: libs.length ? libs : null,
    measurements: measurements.length ? measurements : null,
    opTimeoutMs: positiveInt(env.BENCH_OP_TIMEOUT_MS, 60_000),
    verbose,
    extractIterations: positiveInt(env.BENCH_EXTRACT_ITERATIONS, 3),
    corpusIterations: positiveInt(env.BENCH_CORPUS_ITERATIONS, 1),
    corpusLimit: corpusLimit === undefined ? null : positiveInt(corpusLimit, 0),
    pageDeadlineMs: positiveInt(env.BENCH_PAGE_DEADLINE_MS, 60_000),
    // 20 keeps a full run within ~15 min; Stagehand's two model calls per page dominate it.
    llmPages: env.BENCH_LLM_PAGES === 'all' ? null : positiveInt(env.BENCH_LLM_PAGES, 20),
    actIterations: positiveInt(env.BENCH_ACT_ITERATIONS, 15),
    mcpPages: env.BENCH_MCP_PAGES === 'all' ? null : positiveInt(env.BENCH_MCP_PAGES, 20),
  };
}
