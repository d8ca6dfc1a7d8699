// The reference serverless function (examples/serverless) against the same function written on
// Stagehand 3.7.3 (stagehand-function.ts): how big each is once esbuild has bundled it into one file,
// and its cold start, which is a fresh Node process importing that file and answering one POST: a
// session on the local hosted server, `goto` a bench page, act(instruction), extract(instruction,
// z.string()), close().
//
// Both sessions come from the same hosted server (src/hosted/server, in this process), which launches
// the browser. Tendril's function talks to it directly; Stagehand's Browserbase client goes through a
// loopback proxy that renames its key header (header-proxy.ts). Both reach the same fake model.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HEADERS } from '../../../../protocol/index.js';
import type { HostedServer } from '../../../../src/hosted/server/http.js';
import { chromeNow, closeHostedRun, reapChromeSince, startBenchHostedServer } from '../../core/hosted-server.js';
import { errorText, type ComparisonContext, type Failed } from '../../core/measurement.js';
import { MODEL_NAME, startModelServer, type BenchModelServer } from '../../core/model.js';
import { formatMs } from '../../core/stats.js';
import { ensureStagehandInstalled } from '../../libraries/stagehand.js';
import { answer, BUTTON, type Instructions } from './answers.js';
import { bundleStagehandFunction, bundleTendrilFunction, measureExtensionEntry, type BuiltFunction } from './bundles.js';
import { API_KEY, coldStart, functionVariables, type ColdStart } from './cold-start.js';
import { startHeaderProxy, type HeaderProxy } from './header-proxy.js';

export const FUNCTION_ID = 'function';
export const FUNCTION_PAGE = '/act.html';
/** Stagehand's Browserbase client (a Stainless SDK) sends its key in this header. */
const BROWSERBASE_KEY_HEADER = 'x-bb-api-key';

export type FunctionOutcome =
  | {
      readonly ok: true;
      readonly bytes: number;
      /** Timed runs only. */
      readonly coldStarts: readonly ColdStart[];
      /** Runs (warm-ups included) after which the function's session was still running. */
      readonly sessionsLeft: number;
      readonly runs: number;
    }
  | (Failed & { readonly bytes: number | null });

export interface FunctionRun {
  /** By library id. */
  readonly outcomes: ReadonlyMap<string, FunctionOutcome>;
  readonly pagePath: string;
  readonly modelName: string;
  /** What Stagehand's client asked of the hosted server through the proxy, e.g. "POST /v1/sessions → 201". */
  readonly proxied: readonly string[];
  readonly settings: { readonly iterations: number; readonly warmups: number };
  readonly notes: readonly string[];
  /** `tendril/extension` minified without the AI SDK, when Tendril ran; null if it did not build. */
  readonly extensionBytes?: number | null;
}

const BUNDLERS: Record<string, (dir: string) => Promise<BuiltFunction>> = {
  tendril: bundleTendrilFunction,
  stagehand: bundleStagehandFunction,
};

/** Null when neither library is selected. */
export async function runFunction(ctx: ComparisonContext): Promise<FunctionRun | null> {
  const { env, opts, log } = ctx;
  const ids = ['tendril', 'stagehand'].filter((id) => ctx.libs.some((lib) => lib.id === id) || ctx.unavailable.has(id));
  if (!ids.length) return null;
  const label = (id: string) => ctx.libs.find((lib) => lib.id === id)?.label ?? id;
  const notes: string[] = [];
  const failures = new Map<string, string>();
  for (const id of ids) {
    const why = ctx.unavailable.get(id);
    if (why !== undefined) failures.set(id, why);
  }
  const fail = (id: string, why: string) => {
    failures.set(id, why);
    log(`${FUNCTION_ID} ${label(id)}: FAILED: ${why}`);
  };

  // Outside the repository: no node_modules above it, so a bundle that is not self-contained fails.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tendril-bench-function-'));
  const built = new Map<string, BuiltFunction>();
  const coldStarts = new Map<string, ColdStart[]>(ids.map((id) => [id, []]));
  const sessionsLeft = new Map<string, number>(ids.map((id) => [id, 0]));
  const runs = new Map<string, number>(ids.map((id) => [id, 0]));
  const proxied = new Set<string>();
  const chromeBefore = chromeNow(env);
  let extensionBytes: number | null | undefined;
  let current: Instructions | null = null;
  let model: BenchModelServer | null = null;
  let server: HostedServer | null = null;
  let proxy: HeaderProxy | null = null;
  try {
    for (const id of ids) {
      if (failures.has(id)) continue;
      try {
        if (id === 'stagehand') ensureStagehandInstalled(log);
        const t0 = performance.now();
        const fn = await BUNDLERS[id]!(dir);
        built.set(id, fn);
        log(`${FUNCTION_ID} ${label(id)}: bundled into ${fn.bytes} bytes in ${formatMs(performance.now() - t0)} ms`);
      } catch (err) {
        fail(id, `bundle: ${errorText(err)}`);
      }
    }
    if (ids.includes('tendril')) {
      try {
        extensionBytes = await measureExtensionEntry();
        log(`${FUNCTION_ID} ${label('tendril')}: tendril/extension is ${extensionBytes} bytes minified without the AI SDK`);
      } catch (err) {
        extensionBytes = null;
        notes.push(`tendril/extension did not build: ${errorText(err)}`);
      }
    }
    if (!built.size) return result();

    model = await startModelServer({ answer: (request) => answer(request, current) });
    server = await startBenchHostedServer(env, { apiKey: API_KEY, maxSessions: 4 });
    proxy = await startHeaderProxy(server.url, BROWSERBASE_KEY_HEADER, HEADERS.apiKey);
    const variables = functionVariables(env.server.url(FUNCTION_PAGE), model, server, proxy);

    let serial = 0;
    for (let i = 0; i < opts.warmups + opts.iterations; i++) {
      const timed = i >= opts.warmups;
      const phase = timed ? `${i - opts.warmups + 1}/${opts.iterations}` : `warm-up ${i + 1}`;
      const shown: string[] = [];
      for (const id of ids) {
        const fn = built.get(id);
        if (!fn || failures.has(id)) continue;
        // New instructions every run: the hosted server caches act and extract answers by instruction,
        // and a later run answered from that cache would skip the model call the first one made.
        const n = ++serial;
        current = { act: `Click the "${BUTTON}" button (bench run ${n})`, extract: `How many votes does the page show? (bench run ${n})` };
        runs.set(id, runs.get(id)! + 1);
        try {
          const sample = await coldStart(id, fn, variables[id]!(current), current, model, proxy, opts.opTimeoutMs);
          if (timed) coldStarts.get(id)!.push(sample);
          shown.push(`${label(id)} ${formatMs(sample.totalMs)} ms (import ${formatMs(sample.importMs)} ms)`);
        } catch (err) {
          fail(id, `${phase}: ${errorText(err)}`);
        } finally {
          current = null;
          const left = await releaseLeftovers(server);
          if (left) sessionsLeft.set(id, sessionsLeft.get(id)! + left);
          const killed = await reapChromeSince(env, chromeBefore);
          if (killed)
            notes.push(`${FUNCTION_ID}: ${killed} Chrome process(es) of a ${label(id)} session outlived its release and were killed.`);
        }
      }
      if (shown.length) log(`${FUNCTION_ID} ${phase}: ${shown.join(' | ')}`);
    }
    for (const call of proxy.calls)
      proxied.add(`${call.method} ${call.path.replace(/\/v1\/sessions\/[^/?]+/, '/v1/sessions/:id')} → ${call.status}`);
  } catch (err) {
    for (const id of ids) if (!failures.has(id)) fail(id, errorText(err));
  } finally {
    await proxy?.close();
    await closeHostedRun({ id: FUNCTION_ID, env, server, model, chromeBefore, notes });
    rmSync(dir, { recursive: true, force: true });
  }
  return result();

  function result(): FunctionRun {
    const outcomes = new Map<string, FunctionOutcome>();
    for (const id of ids) {
      const bytes = built.get(id)?.bytes ?? null;
      const why = failures.get(id);
      outcomes.set(
        id,
        why !== undefined || bytes === null
          ? { ok: false, error: why ?? 'not bundled', bytes }
          : { ok: true, bytes, coldStarts: coldStarts.get(id)!, sessionsLeft: sessionsLeft.get(id)!, runs: runs.get(id)! },
      );
    }
    return {
      outcomes,
      pagePath: FUNCTION_PAGE,
      modelName: MODEL_NAME,
      proxied: [...proxied],
      settings: { iterations: opts.iterations, warmups: opts.warmups },
      notes,
      extensionBytes,
    };
  }
}

/** Ends whatever session a run left running (untimed); returns how many there were. */
async function releaseLeftovers(server: HostedServer): Promise<number> {
  const left = server.sessions.runningIds();
  for (const id of left) await server.sessions.release(id).catch(() => undefined);
  return left.length;
}
