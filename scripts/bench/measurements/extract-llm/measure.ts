// extract(instruction, schema) against a fake model: what each library costs around the model (time
// beyond the model's, prompt tokens, requests). Both libraries get the same model object, pointing
// at one fake OpenAI server (core/model.ts) that answers every request at once.
//
// Per page, every library navigates (untimed, until `load`) and then one extract(instruction,
// schema) is timed. As in the page-text measurement, each library keeps one browser for all pages
// and the libraries alternate page by page (core/page-pool.ts).
import type { LibraryAdapter, SchemaBuilder } from '../../core/adapter.js';
import { openPages } from '../../core/page-sets.js';
import { MODEL_NAME, startModelServer, type BenchModelServer } from '../../core/model.js';
import type { ComparisonContext, Failed } from '../../core/measurement.js';
import { PagePool, runPages, type PageResultOf } from '../../core/page-pool.js';
import type { TimedSession } from '../../core/timed-session.js';

export const EXTRACT_LLM_ID = 'extract-llm';

export const INSTRUCTION = "Extract the article's headline, its author and its publication date.";
// No `.url()` fields: the fake cannot pick link ids that mean something to both libraries.
export const SCHEMA: SchemaBuilder = (z) =>
  z.object({
    title: z.string().describe('The headline'),
    author: z.string().optional(),
    published: z.string().optional(),
  });

/** One timed extract(instruction, schema). */
export interface LlmCall {
  /** Wall time of the call, ms. */
  readonly ms: number;
  /** Time its model requests took, seen from the client (send until the whole reply is in), ms. */
  readonly modelMs: number;
  readonly requests: number;
  /** Sum over its requests of the fake's o200k_base count (prompt plus JSON schema). */
  readonly promptTokens: number;
}

export type LlmOutcome = { readonly ok: true; readonly calls: readonly LlmCall[] } | Failed;

export type LlmPageResult = PageResultOf<LlmOutcome>;

export interface LlmRun {
  readonly pages: readonly LlmPageResult[];
  /** Articles in the corpus folder; null when it is absent. */
  readonly corpusTotal: number | null;
  readonly modelName: string;
  /** By library id: the kinds of request seen, e.g. "responses: progress, completed" (schema properties). */
  readonly requestKinds: ReadonlyMap<string, ReadonlySet<string>>;
  readonly settings: {
    readonly demoIterations: number;
    readonly corpusIterations: number;
    readonly warmups: number;
    readonly pageDeadlineMs: number;
  };
  readonly notes: readonly string[];
}

export async function runExtractLlm(ctx: ComparisonContext): Promise<LlmRun> {
  const { libs, env, opts, log } = ctx;
  const notes: string[] = [];
  const limits = [opts.llmPages, opts.corpusLimit].filter((n): n is number => n !== null);
  const corpusLimit = limits.length ? Math.min(...limits) : null;
  const set = await openPages(env.server, { id: EXTRACT_LLM_ID, table: false, demo: true, corpusLimit }, log);
  const { corpus } = set;
  if (corpus) log(`${EXTRACT_LLM_ID}: first ${corpus.pages.length} of ${corpus.total} corpus pages (BENCH_LLM_PAGES, --corpus-limit)`);
  if (set.corpusMissing) notes.push(`${EXTRACT_LLM_ID}: ${set.corpusMissing}`);

  const model: BenchModelServer = await startModelServer();
  const requestKinds = new Map(libs.map((lib) => [lib.id, new Set<string>()]));

  const call = async (lib: LibraryAdapter, s: TimedSession): Promise<LlmCall> => {
    // Calls are sequential, so the requests that arrive during this one are its own.
    const before = model.fake.requests.length;
    model.meter.take();
    const { ms, value } = await s.extractWithSchema(INSTRUCTION, SCHEMA);
    const { ms: fetchMs, requests: sent } = model.meter.take();
    // A library in another process waits for its model through the pipe too; it times that wait itself.
    const modelMs = s.raw.lastModelMs?.() ?? fetchMs;
    const requests = model.fake.requests.slice(before);
    // A request of an earlier, abandoned call arriving now would be counted here; say so instead.
    if (sent !== requests.length) throw new Error(`${sent} model requests sent but ${requests.length} received during the call`);
    for (const r of requests) {
      const props = Object.keys((r.schema as { properties?: object } | undefined)?.properties ?? {});
      requestKinds.get(lib.id)!.add(`${r.endpoint}: ${props.join(', ') || 'no schema'}`);
    }
    // The fake answers "bench" for every string: anything else means the answer did not come back.
    if ((value as { title?: unknown } | null)?.title !== 'bench')
      throw new Error(`unexpected result ${JSON.stringify(value)?.slice(0, 80)}`);
    return { ms, modelMs, requests: requests.length, promptTokens: requests.reduce((sum, r) => sum + r.promptTokens, 0) };
  };

  // The warm-up call goes through `call` too, so its requests are checked (and their kinds seen).
  const pool = new PagePool(env, { what: 'extract(instruction, schema)', call, options: { model: model.model } });
  let pages: LlmPageResult[];
  try {
    pages = await runPages(ctx, {
      id: EXTRACT_LLM_ID,
      set,
      pool,
      outcome: (_page, calls): Exclude<LlmOutcome, Failed> => ({ ok: true, calls }),
      describe,
    });
  } finally {
    await model.close();
  }
  for (const [lib, why] of pool.givenUp) notes.push(`${lib.label} (extract-llm): ${why}`);

  return {
    pages,
    corpusTotal: corpus ? corpus.total : null,
    modelName: MODEL_NAME,
    requestKinds,
    settings: {
      demoIterations: opts.extractIterations,
      corpusIterations: opts.corpusIterations,
      warmups: opts.warmups,
      pageDeadlineMs: opts.pageDeadlineMs,
    },
    notes,
  };
}

function describe(o: LlmOutcome): string {
  if (!o.ok) return `FAILED: ${o.error}`;
  const c = o.calls;
  const ms = c.map((x) => `${x.ms.toFixed(0)}`).join('/');
  const model = c.map((x) => x.modelMs.toFixed(1)).join('/');
  return `${ms} ms (model ${model} ms), ${c.map((x) => x.requests).join('/')} req, ${c.map((x) => x.promptTokens).join('/')} tok`;
}
