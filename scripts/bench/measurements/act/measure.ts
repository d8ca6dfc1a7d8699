// act(action) with an observe() result: one deterministic click on a top-page button, which neither
// library should need a model for. Each library keeps one browser on one page (a launch or a
// navigation per click would drown the click), and the libraries alternate call by call.
//
// Both are constructed with the fake model of extract-llm anyway. Neither needs it here, but with a
// model configured both have a path that asks one (Tendril's heal, Stagehand's self-heal) when the
// element cannot take the action; the fake turns such a call into a loud failure instead of a
// quietly slower sample, and it is how real code looks (observe() needed the model).
import type { BenchAction, LibraryAdapter } from '../../core/adapter.js';
import { startModelServer } from '../../core/model.js';
import { errorText, unavailableOutcomes, type ComparisonContext, type Failed } from '../../core/measurement.js';
import { formatMs } from '../../core/stats.js';
import { TimedSession, withTimeout } from '../../core/timed-session.js';

export const ACT_ID = 'act';
export const ACT_PAGE = '/act.html';
/** What observe() would return for the page's vote button (an absolute XPath, as both emit). */
export const ACTION: BenchAction = {
  selector: 'xpath=/html/body/main/section[2]/button',
  description: 'the counter button',
  method: 'click',
  arguments: [],
};
/** The number the page shows; its click listener adds one. */
const COUNTER = "Number(document.getElementById('count').textContent)";

export type ActOutcome = { readonly ok: true; readonly times: readonly number[] } | Failed;

export interface ActRun {
  /** By library id. */
  readonly outcomes: ReadonlyMap<string, ActOutcome>;
  readonly action: BenchAction;
  readonly pagePath: string;
  readonly settings: { readonly iterations: number; readonly warmups: number };
}

export async function runAct(ctx: ComparisonContext): Promise<ActRun> {
  const { libs, env, opts, log } = ctx;
  const outcomes = new Map<string, ActOutcome>(unavailableOutcomes(ctx.unavailable));
  const times = new Map<string, number[]>(libs.map((lib) => [lib.id, []]));
  const sessions = new Map<string, TimedSession>();
  const counters = new Map<string, number>();
  const model = await startModelServer();
  // A fetch per library, so a request is pinned on the library that sent it; the fake's own log
  // also catches one sent some other way.
  const sent = new Map<string, number>(libs.map((lib) => [lib.id, 0]));
  let received = 0;
  const modelFor = (lib: LibraryAdapter) => ({
    ...model.model,
    fetch: ((input, init) => {
      sent.set(lib.id, sent.get(lib.id)! + 1);
      return model.model.fetch!(input, init);
    }) as typeof fetch,
  });

  const readCounter = async (s: TimedSession): Promise<number> => {
    const value = await withTimeout(`${s.lib.label} evaluate()`, env.opTimeoutMs, s.raw.evaluate(COUNTER));
    if (typeof value !== 'number' || !Number.isInteger(value)) throw new Error(`the page's counter reads ${JSON.stringify(value)}`);
    return value;
  };

  const fail = async (lib: LibraryAdapter, why: string): Promise<void> => {
    outcomes.set(lib.id, { ok: false, error: why });
    log(`${ACT_ID} ${lib.label}: FAILED: ${why}`);
    const s = sessions.get(lib.id);
    sessions.delete(lib.id);
    await s?.dispose();
  };

  /** One act(action), timed; then, untimed, the checks that it clicked once and asked no model. */
  const once = async (lib: LibraryAdapter, s: TimedSession): Promise<number> => {
    const before = counters.get(lib.id)!;
    const { ms, success } = await s.act(ACTION).catch((err: unknown) => {
      // A heal that asked the model and then failed would otherwise hide that it asked.
      const requests = sent.get(lib.id)!;
      throw new Error(`${requests ? `act(action) sent ${requests} request(s) to the model, then threw: ` : ''}${errorText(err)}`);
    });
    const after = await readCounter(s);
    counters.set(lib.id, after);
    const requests = sent.get(lib.id)!;
    if (requests) throw new Error(`act(action) sent ${requests} request(s) to the model`);
    const arrived = model.fake.requests.length - received;
    received = model.fake.requests.length;
    if (arrived) throw new Error(`the fake model received ${arrived} request(s) by the end of this act(action)`);
    if (!success) throw new Error('act(action) resolved with success: false');
    if (after !== before + 1)
      throw new Error(`the counter went from ${before} to ${after}, not ${before + 1}: act(action) did not click exactly once`);
    return ms;
  };

  try {
    for (const lib of libs) {
      if (outcomes.has(lib.id)) continue;
      const s = new TimedSession(lib, lib.newSession(env.launch, { model: modelFor(lib) }), env);
      sessions.set(lib.id, s);
      try {
        await s.init();
        await s.goto(env.server.url(ACT_PAGE));
        const start = await readCounter(s);
        if (start !== 0) throw new Error(`the counter starts at ${start}, not 0`);
        counters.set(lib.id, start);
      } catch (err) {
        await fail(lib, `init + goto ${ACT_PAGE}: ${errorText(err)}`);
      }
    }
    for (let i = 0; i < opts.warmups + opts.actIterations; i++) {
      const timed = i >= opts.warmups;
      const phase = timed ? `${i - opts.warmups + 1}/${opts.actIterations}` : `warm-up ${i + 1}`;
      const shown: string[] = [];
      for (const lib of libs) {
        const s = sessions.get(lib.id);
        if (!s || outcomes.has(lib.id)) continue;
        try {
          const ms = await once(lib, s);
          if (timed) times.get(lib.id)!.push(ms);
          shown.push(`${lib.label} ${formatMs(ms)} ms`);
        } catch (err) {
          await fail(lib, `${phase}: ${errorText(err)}`);
        }
      }
      if (shown.length) log(`${ACT_ID} ${phase}: ${shown.join(' | ')}`);
    }
  } finally {
    for (const s of sessions.values()) await s.dispose();
    await model.close();
  }
  for (const lib of libs) if (!outcomes.has(lib.id)) outcomes.set(lib.id, { ok: true, times: times.get(lib.id)! });
  return { outcomes, action: ACTION, pagePath: ACT_PAGE, settings: { iterations: opts.actIterations, warmups: opts.warmups } };
}
