// extract(instruction, schema) against a fake model: what each library costs around the model (time
// beyond the model's, prompt tokens, requests). Both libraries get the same model object, pointing
// at one fake OpenAI server (llm-model.ts) that answers every request at once.
//
// Per page, every library navigates (untimed, until `load`) and then one extract(instruction,
// schema) is timed. As in the page-text measurement, each library keeps one browser for all pages
// and the libraries alternate page by page.
import { TimedSession, withTimeout, type BenchEnv, type LibraryAdapter, type SchemaBuilder } from '../adapter.js';
import { CORPUS_DIR, OFFLINE_ARG, type BenchOptions } from '../config.js';
import { loadCorpus, startDemo, type DemoServer, type ExtractPage } from '../extract-pages.js';
import { MODEL_NAME, startModelServer, type BenchModelServer } from '../llm-model.js';

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

export type LlmOutcome = { readonly ok: true; readonly calls: readonly LlmCall[] } | { readonly ok: false; readonly error: string };

export interface LlmPageResult {
  readonly page: ExtractPage;
  /** By library id. */
  readonly outcomes: ReadonlyMap<string, LlmOutcome>;
}

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

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;

/** Each new session extracts from this page once, untimed, before its first measured page. */
const WARMUP_PATH = '/basic.html';

export async function runExtractLlm(
  libs: readonly LibraryAdapter[],
  unavailable: ReadonlyMap<string, string>,
  env: BenchEnv,
  opts: BenchOptions,
  log: (line: string) => void,
): Promise<LlmRun> {
  const notes: string[] = [];
  const launch = { ...env.launch, args: [...env.launch.args, OFFLINE_ARG] };
  const pages: ExtractPage[] = [];
  let demo: DemoServer | null = null;
  let demoError: string | null = null;
  try {
    demo = await startDemo();
    pages.push(demo.page);
  } catch (err) {
    demoError = `could not serve the demo page: ${errorText(err)}`;
    log(`${EXTRACT_LLM_ID}: ${demoError}`);
  }
  const limits = [opts.llmPages, opts.corpusLimit].filter((n): n is number => n !== null);
  const corpus = loadCorpus(env.server, limits.length ? Math.min(...limits) : null);
  if (corpus) {
    pages.push(...corpus.pages);
    log(`${EXTRACT_LLM_ID}: first ${corpus.pages.length} of ${corpus.total} corpus pages (BENCH_LLM_PAGES, --corpus-limit)`);
  } else {
    const msg = `corpus folder ${CORPUS_DIR} is missing: real pages skipped`;
    log(`${EXTRACT_LLM_ID}: ${msg}`);
    notes.push(`${EXTRACT_LLM_ID}: ${msg}`);
  }

  const model: BenchModelServer = await startModelServer();
  const requestKinds = new Map(libs.map((lib) => [lib.id, new Set<string>()]));
  const sessions = new Map<string, TimedSession>();
  const givenUp = new Map<string, string>();

  const call = async (lib: LibraryAdapter, s: TimedSession): Promise<LlmCall> => {
    // Calls are sequential, so the requests that arrive during this one are its own.
    const before = model.fake.requests.length;
    model.meter.take();
    const { ms, value } = await s.extractWithSchema(INSTRUCTION, SCHEMA);
    const { ms: modelMs, requests: sent } = model.meter.take();
    const requests = model.fake.requests.slice(before);
    // A request of an earlier, abandoned call arriving now would be counted here; say so instead.
    if (sent !== requests.length) throw new Error(`${sent} model requests sent but ${requests.length} received during the call`);
    for (const r of requests) {
      const props = Object.keys((r.schema as { properties?: object } | undefined)?.properties ?? {});
      requestKinds.get(lib.id)!.add(`${r.endpoint}: ${props.join(', ') || 'no schema'}`);
    }
    // The fake answers "bench" for every string: anything else means the answer did not come back.
    if ((value as { title?: unknown } | null)?.title !== 'bench') throw new Error(`unexpected result ${JSON.stringify(value)?.slice(0, 80)}`);
    return { ms, modelMs, requests: requests.length, promptTokens: requests.reduce((sum, r) => sum + r.promptTokens, 0) };
  };

  const dropSession = async (lib: LibraryAdapter): Promise<void> => {
    const s = sessions.get(lib.id);
    sessions.delete(lib.id);
    await s?.dispose();
  };

  const sessionFor = async (lib: LibraryAdapter): Promise<TimedSession> => {
    const existing = sessions.get(lib.id);
    if (existing) return existing;
    const gaveUp = givenUp.get(lib.id);
    if (gaveUp) throw new Error(gaveUp);
    const s = new TimedSession(lib, lib.newSession(launch, { model: model.model }), env);
    sessions.set(lib.id, s);
    try {
      await s.init();
      await s.goto(env.server.url(WARMUP_PATH));
      await call(lib, s);
    } catch (err) {
      // A library that cannot extract from the warm-up page is not tried again on every page.
      const why = `no session (init + extract(instruction, schema) on ${WARMUP_PATH} failed: ${errorText(err)})`;
      givenUp.set(lib.id, why);
      await dropSession(lib);
      throw new Error(why);
    }
    return s;
  };

  /** goto (untimed) + one extract (timed), under the per-page deadline. */
  const once = async (lib: LibraryAdapter, page: ExtractPage): Promise<LlmCall> => {
    const s = await sessionFor(lib);
    return withTimeout(
      `${lib.label} on ${page.label}`,
      opts.pageDeadlineMs,
      (async () => {
        await s.goto(page.url).catch((err: unknown) => {
          throw new Error(`goto: ${errorText(err)}`);
        });
        return call(lib, s).catch((err: unknown) => {
          throw new Error(`extract(instruction, schema): ${errorText(err)}`);
        });
      })(),
    );
  };

  const unavailableOutcomes = () => [...unavailable].map(([id, error]): [string, LlmOutcome] => [id, { ok: false, error }]);
  const results: LlmPageResult[] = [];
  try {
    for (const [index, page] of pages.entries()) {
      const article = page.kind === 'article';
      const timed = article ? opts.corpusIterations : opts.extractIterations;
      const warmups = article ? 0 : opts.warmups;
      const outcomes = new Map<string, LlmOutcome>(unavailableOutcomes());
      const calls = new Map<string, LlmCall[]>(libs.map((lib) => [lib.id, []]));
      for (let i = 0; i < warmups + timed; i++) {
        for (const lib of libs) {
          if (outcomes.has(lib.id)) continue;
          try {
            const c = await once(lib, page);
            if (i >= warmups) calls.get(lib.id)!.push(c);
          } catch (err) {
            outcomes.set(lib.id, { ok: false, error: errorText(err) });
            // It may be stuck mid-extract; the next page gets a fresh browser.
            await dropSession(lib);
          }
        }
      }
      for (const lib of libs) if (!outcomes.has(lib.id)) outcomes.set(lib.id, { ok: true, calls: calls.get(lib.id)! });
      results.push({ page, outcomes });
      log(`${EXTRACT_LLM_ID} ${index + 1}/${pages.length} ${page.label}: ${libs.map((lib) => `${lib.label} ${describe(outcomes.get(lib.id)!)}`).join(' | ')}`);
    }
  } finally {
    for (const lib of libs) await dropSession(lib);
    demo?.close();
    await model.close();
  }

  if (demoError) {
    const failed = new Map<string, LlmOutcome>([...libs.map((lib) => [lib.id, { ok: false, error: demoError }] as const), ...unavailableOutcomes()]);
    results.unshift({ page: { id: 'demo', kind: 'demo', label: 'demo page', url: '' }, outcomes: failed });
  }
  for (const [id, why] of givenUp) notes.push(`${libs.find((l) => l.id === id)?.label ?? id} (extract-llm): ${why}`);

  return {
    pages: results,
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
