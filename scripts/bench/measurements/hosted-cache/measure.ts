// The hosted server's extract cache: what a repeated extract(instruction, schema) costs in env
// "HOSTED" once the server has the answer (HIT), against one it has to ask the model for (MISS).
//
// Tendril only: Stagehand has no server one can run oneself, so there is nothing to compare with.
// The server runs in this process (src/hosted/server), its browser is launched by it on a session
// request, and the model is the fake of extract-llm, made to take a fixed time per reply: a HIT is
// worth exactly the model call it avoids, so that call has to cost what a real one roughly does.
import type { HostedServer } from '../../../../src/hosted/server/http.js';
import { chromeNow, closeHostedRun, startBenchHostedServer } from '../../core/hosted-server.js';
import { MODEL_NAME, startModelServer, type BenchModelServer } from '../../core/model.js';
import { errorText, type ComparisonContext, type Failed } from '../../core/measurement.js';
import { formatMs } from '../../core/stats.js';
import { TimedSession } from '../../core/timed-session.js';
import { hostedTendrilSession } from '../../libraries/tendril.js';
import { INSTRUCTION, SCHEMA } from '../extract-llm/measure.js';

export const HOSTED_CACHE_ID = 'hosted-cache';
/**
 * Fixed time the fake model takes per reply: about what gpt-4.1-mini needs for a short structured
 * answer. extract-llm keeps its fake instant, since it subtracts the model's time instead.
 */
export const MODEL_LATENCY_MS = 1000;
/** Bench pages (pages/), each loaded untimed before its MISS/HIT pair. */
export const HOSTED_CACHE_PAGES: readonly string[] = ['/basic.html', '/act.html'];
const API_KEY = 'bench-hosted-key';

/** One MISS and the HIT repeating it, on one page, ms. */
export interface CachePair {
  readonly page: string;
  readonly miss: number;
  readonly hit: number;
  /** Model requests the MISS made (the HIT is checked to make none). */
  readonly missRequests: number;
}

export type HostedCacheOutcome = { readonly ok: true; readonly pairs: readonly CachePair[] } | Failed;

export interface HostedCacheRun {
  /** Tendril's outcome; `pairs` are the timed ones only. */
  readonly outcome: HostedCacheOutcome;
  readonly pages: readonly string[];
  readonly modelName: string;
  readonly modelLatencyMs: number;
  readonly settings: { readonly iterations: number; readonly warmups: number };
  readonly notes: readonly string[];
}

/** Null when Tendril is not among the libraries selected (the measurement has nothing else to run). */
export async function runHostedCache(ctx: ComparisonContext): Promise<HostedCacheRun | null> {
  const { env, opts, log } = ctx;
  const base = {
    pages: HOSTED_CACHE_PAGES,
    modelName: MODEL_NAME,
    modelLatencyMs: MODEL_LATENCY_MS,
    settings: { iterations: opts.iterations, warmups: opts.warmups },
  };
  const unavailable = ctx.unavailable.get('tendril');
  if (unavailable !== undefined) return { ...base, outcome: { ok: false, error: unavailable }, notes: [] };
  const tendril = ctx.libs.find((lib) => lib.id === 'tendril');
  if (!tendril) {
    log(`${HOSTED_CACHE_ID}: skipped, Tendril is not selected (--only)`);
    return null;
  }

  const notes: string[] = [];
  const pairs: CachePair[] = [];
  let outcome: HostedCacheOutcome;
  // Whatever Chrome the server starts and does not close is found against this.
  const chromeBefore = chromeNow(env);
  let model: BenchModelServer | null = null;
  let server: HostedServer | null = null;
  let session: TimedSession | null = null;
  try {
    model = await startModelServer({ delayMs: MODEL_LATENCY_MS });
    server = await startBenchHostedServer(env, { apiKey: API_KEY, maxSessions: 1 });
    session = new TimedSession(tendril, hostedTendrilSession({ url: server.url, apiKey: API_KEY }, model.model), env);
    await session.init();
    const pair = pairRunner(session, model, ctx);
    for (let i = 0; i < opts.warmups + opts.iterations; i++) {
      const timed = i >= opts.warmups;
      const phase = timed ? `${i - opts.warmups + 1}/${opts.iterations}` : `warm-up ${i + 1}`;
      for (const page of HOSTED_CACHE_PAGES) {
        const p = await pair(page, phase);
        if (timed) pairs.push(p);
        log(`${HOSTED_CACHE_ID} ${phase} ${page}: MISS ${formatMs(p.miss)} ms, HIT ${formatMs(p.hit)} ms`);
      }
    }
    outcome = { ok: true, pairs };
  } catch (err) {
    outcome = { ok: false, error: errorText(err) };
    log(`${HOSTED_CACHE_ID} ${tendril.label}: FAILED: ${outcome.error}`);
  } finally {
    // The client first (it releases its session, whose browser the server then closes), then the
    // server (closing any session left), then whatever Chrome either left behind.
    await session?.dispose();
    await closeHostedRun({ id: HOSTED_CACHE_ID, env, server, model, chromeBefore, notes });
  }
  return { ...base, outcome, notes };
}

/**
 * One MISS/HIT pair on `page`: navigate (untimed), extract with an instruction no earlier call used
 * (so the server cannot have it), then the very same call again. Every assertion throws.
 */
function pairRunner(s: TimedSession, model: BenchModelServer, ctx: ComparisonContext) {
  let serial = 0;
  const call = async (instruction: string, expected: 'MISS' | 'HIT') => {
    const before = model.fake.requests.length;
    const { ms, value } = await s.extractWithSchema(instruction, SCHEMA);
    const requests = model.fake.requests.slice(before);
    const { cacheStatus, ...data } = (value ?? {}) as { cacheStatus?: unknown; title?: unknown };
    if (cacheStatus !== expected) throw new Error(`expected cacheStatus ${expected}, got ${JSON.stringify(cacheStatus)}`);
    if (expected === 'HIT' && requests.length) throw new Error(`a HIT sent ${requests.length} request(s) to the model`);
    if (expected === 'MISS' && !requests.some((r) => r.prompt.includes(instruction))) {
      throw new Error(`a MISS sent no request with its instruction to the model (${requests.length} request(s))`);
    }
    // The fake answers "bench" for every string: anything else did not come from it.
    if (data.title !== 'bench') throw new Error(`unexpected ${expected} result ${JSON.stringify(value)?.slice(0, 80)}`);
    return { ms, data, requests: requests.length };
  };
  return async (page: string, phase: string): Promise<CachePair> => {
    const url = ctx.env.server.url(page);
    try {
      await s.goto(url);
      const instruction = `${INSTRUCTION} (bench request ${++serial})`;
      const miss = await call(instruction, 'MISS');
      const hit = await call(instruction, 'HIT');
      if (JSON.stringify(hit.data) !== JSON.stringify(miss.data)) {
        throw new Error(`the HIT answered ${JSON.stringify(hit.data)}, the MISS ${JSON.stringify(miss.data)}`);
      }
      return { page, miss: miss.ms, hit: hit.ms, missRequests: miss.requests };
    } catch (err) {
      throw new Error(`${phase} on ${page}: ${errorText(err)}`);
    }
  };
}
