// Token budgets (docs/budgets.md). Every model request the library makes passes one TokenMeter:
// ModelCall.ask (extract with its chunks, act with its retry, observe, MCP sampling, requests through
// a model server) and meteredModel() (the agent's tool loop and its verdict). The meter refuses a
// request before it is sent when its estimate would pass a limit, and charges what it used after.

import { BudgetExceededError, InvalidOptionError } from '../errors.js';
import type { SdkBudget, TokenAccount, TokenBudget, TokenUsage } from '../types.js';

/** The output cap of a request under a budget, when the budget names none. */
export const DEFAULT_OUTPUT_CAP = 4096;

/** A count against a limit: one operation's maxTokens, or the Sdk's totalTokens. */
export class TokenLimit {
  used = 0;
  /** What requests in flight may use: parallel chunks must not each pass the same check. */
  reserved = 0;
  constructor(
    readonly scope: 'call' | 'sdk',
    readonly limit: number,
  ) {}
}

/** One request's hold on a ReservingAccount. */
export interface TokenReservation {
  /** Charges what the request used, as the hold goes. */
  settle(usage: TokenUsage): Promise<void>;
  /** Lets go of the hold of a request that failed; nothing is charged. */
  cancel(): Promise<void>;
}

/**
 * An account that holds a request's estimate itself, in one step with the check: one shared by
 * several processes (a batch queue's, in Redis), which this process's in-flight count cannot cover.
 */
export interface ReservingAccount extends TokenAccount {
  /** Holds `tokens`, or says what is left (and what other requests in flight hold) when they do not fit. */
  reserve(tokens: number): Promise<TokenReservation | { left: number; held: number }>;
}

function reserving(account: TokenAccount): account is ReservingAccount {
  return typeof (account as Partial<ReservingAccount>).reserve === 'function';
}

/** Tokens reserved by requests in flight against each account, over every meter of this process. */
const inFlight = new Map<TokenAccount, number>();

type Usage = { promptTokens: number; completionTokens: number };

/** One admitted request's hold on the budget. */
export interface Ticket {
  /** Adds what the request used to every limit and account (and lets go of its reservation). */
  charge(usage: Usage, signal?: AbortSignal): Promise<void>;
  /** Lets go of the reservation of a request that failed; nothing is charged. Safe to call twice. */
  release(): void;
}

export class TokenMeter {
  /** Once one request was refused, the operation is over: every later one is refused too. */
  #refused: BudgetExceededError | undefined;

  constructor(
    readonly limits: TokenLimit[],
    readonly accounts: TokenAccount[],
    /** Sent as each request's maxOutputTokens, and counted in what it needs. */
    readonly outputCap: number,
  ) {}

  /**
   * Sends one request if its estimate (`promptTokens` plus the output cap) fits every limit and
   * account; else throws BudgetExceededError and sends nothing. Then charges what it reported.
   */
  async request<T>(
    promptTokens: number,
    signal: AbortSignal | undefined,
    send: () => Promise<T>,
    usageOf: (reply: T) => Usage,
  ): Promise<T> {
    const ticket = await this.admit(promptTokens, signal);
    try {
      const reply = await send();
      await ticket.charge(usageOf(reply), signal);
      return reply;
    } finally {
      ticket.release();
    }
  }

  /**
   * The check before a request: throws BudgetExceededError if it does not fit, else reserves its
   * estimate until the ticket is charged (with what the request used) or released (it failed).
   * Limits are checked and reserved before any await, so that requests started together (an
   * extract's chunks) see each other; an account's in-flight reservations are this process's.
   */
  async admit(promptTokens: number, signal: AbortSignal | undefined): Promise<Ticket> {
    const needed = promptTokens + this.outputCap;
    const refuse = (scope: BudgetExceededError['scope'], limit: number, used: number): never => {
      // Its fields set after it is made: the class has no constructor of its own, to keep bundles small.
      throw (this.#refused = Object.assign(
        new BudgetExceededError(
          `A model request was not sent: it needs about ${needed} tokens (${promptTokens} of prompt, estimated, and an output cap of ${this.outputCap}), ` +
            `and the ${scope}'s budget has ${Math.max(0, limit - used)} of ${limit} left. Raise it, lower budget.maxOutputTokens, or send less of the page (\`selector\`).`,
        ),
        { limit, used, needed, scope },
      ));
    };
    if (this.#refused) throw this.#refused;
    for (const { scope, limit, used, reserved } of this.limits) if (used + reserved + needed > limit) refuse(scope, limit, used + reserved);
    const plain = this.accounts.filter((account) => !reserving(account));
    const holders = this.accounts.filter(reserving);
    let held: TokenAccount[] | undefined = [];
    // Holds granted so far; `gone` once the request will not be sent, when a late grant is let go.
    const reservations: TokenReservation[] = [];
    let gone = false;
    const hold = (sign: number) => {
      for (const limit of this.limits) limit.reserved += sign * needed;
      for (const account of held!) inFlight.set(account, (inFlight.get(account) ?? 0) + sign * needed);
    };
    const release = () => {
      if (held) hold(-1);
      held = undefined;
      gone = true;
      for (const reservation of reservations.splice(0)) void reservation.cancel().catch(() => undefined);
    };
    hold(1);
    try {
      const holding = holders.map(async (account) => {
        const got = await account.reserve(needed);
        if ('cancel' in got) {
          if (gone) void got.cancel().catch(() => undefined);
          else reservations.push(got);
        }
        return got;
      });
      // An account may be remote (Redis): the call's deadline bounds asking it too.
      const [left, got] = await bounded(
        Promise.all([Promise.all(plain.map(async (account) => account.remaining())), Promise.all(holding)]),
        signal,
      );
      plain.forEach((account, index) => {
        const used = inFlight.get(account) ?? 0;
        if (!(left[index]! >= used + needed)) refuse('account', Number(left[index]), used);
      });
      for (const each of got) if (!('cancel' in each)) refuse('account', each.left + each.held, each.held);
    } catch (error) {
      release();
      throw error;
    }
    held = plain;
    for (const account of held) inFlight.set(account, (inFlight.get(account) ?? 0) + needed);
    return {
      release,
      charge: async ({ promptTokens: prompt, completionTokens: completion }, within) => {
        const settling = reservations.splice(0);
        release();
        const usage = { promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion };
        for (const limit of this.limits) limit.used += usage.totalTokens;
        await bounded(
          Promise.all([...plain.map(async (account) => account.spend(usage)), ...settling.map((reservation) => reservation.settle(usage))]),
          within,
        );
      },
    };
  }
}

/** `work`, or the signal's reason the moment it aborts. */
function bounded<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * The meter of one operation: its own maxTokens (else the Sdk's), the Sdk's total, and the Sdk's
 * and its own accounts. Undefined when no budget applies.
 */
export function meterFor(sdk: SdkBudget | undefined, total: TokenLimit | undefined, own: TokenBudget | undefined): TokenMeter | undefined {
  const maxTokens = own?.maxTokens ?? sdk?.maxTokens;
  const limits = [maxTokens ? new TokenLimit('call', maxTokens) : undefined, total].filter((each) => each !== undefined);
  const accounts = [...new Set([sdk?.account, own?.account])].filter((each) => each !== undefined);
  return limits.length || accounts.length
    ? new TokenMeter(limits, accounts, own?.maxOutputTokens ?? sdk?.maxOutputTokens ?? DEFAULT_OUTPUT_CAP)
    : undefined;
}

/**
 * SdkOptions.budget (`sdk`) or a call's or agent run's `budget`, checked. Refused with env "HOSTED":
 * its models run on the service, where this Sdk can neither stop a request nor see what it used.
 */
function checkBudget(budget: unknown, where: string, hosted: boolean, sdk = false): void {
  if (budget === undefined) return;
  const fail = (why: string): never => {
    throw new InvalidOptionError(`\`${where}\` ${why}`);
  };
  if (hosted)
    fail(
      'is not available with env "HOSTED": its models run on the service, which this Sdk cannot hold to a budget. Leave it out, or use env "LOCAL" (with `modelServer` to run the models on a server).',
    );
  if (!(typeof budget === 'object' && budget !== null && !Array.isArray(budget))) fail('takes { maxTokens?, account?, maxOutputTokens? }.');
  const b = budget as Record<string, unknown>;
  if (!sdk && b.totalTokens !== undefined) fail("takes no totalTokens: that is for the Sdk's budget; maxTokens limits this one.");
  for (const key of ['maxTokens', 'totalTokens', 'maxOutputTokens']) {
    const value = b[key];
    if (value !== undefined && !(Number.isInteger(value) && (value as number) > 0))
      fail(`.${key} must be a positive whole number of tokens, not ${String(value)}.`);
  }
  const account = b.account as Record<string, unknown> | undefined;
  if (account !== undefined && !(typeof account?.remaining === 'function' && typeof account.spend === 'function')) {
    fail('.account must be a TokenAccount: { remaining(), spend(usage) }.');
  }
}

/**
 * The budgets of one Sdk: its `budget` option, checked, and a maker of its operations' meters (each
 * `own` budget checked as `where`). Given to the Sdk by the main entry: tendril/extension leaves
 * budgets out of its bundle (its size budget) and refuses the option.
 */
export function sdkBudgets(
  sdk: SdkBudget | undefined,
  hosted: boolean,
): (own: TokenBudget | TokenMeter | undefined, where?: string) => TokenMeter | undefined {
  checkBudget(sdk, 'budget', hosted, true);
  const total = sdk?.totalTokens ? new TokenLimit('sdk', sdk.totalTokens) : undefined;
  return (own, where = 'budget') => {
    // An agent run's meter, given as the budget of its tools' calls: they count against the run.
    if (own instanceof TokenMeter) return own;
    checkBudget(own, where, hosted);
    return meterFor(sdk, total, own);
  };
}
