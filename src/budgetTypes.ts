// Public types of token budgets (docs/budgets.md); src/types.ts re-exports them, so callers import
// every public type from one place.

/** Tokens a model request used (prompt + completion, as the provider reports them). */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/**
 * A shared account of tokens (e.g. a batch queue's, kept in Redis). Asked before each model request
 * (a request that would need more than remains is not sent), told after each request what it used.
 */
export interface TokenAccount {
  /** Tokens left; Infinity for no limit. */
  remaining(): Promise<number> | number;
  /** Records what one request used. */
  spend(usage: TokenUsage): Promise<void> | void;
}

/** Limits on what model calls may spend. */
export interface TokenBudget {
  /** Most tokens one operation may use in all: one extract/act/observe with its chunks and retries, or one agent run. */
  maxTokens?: number;
  /** Shared account(s) every request is checked against and charged to. */
  account?: TokenAccount;
  /**
   * The output cap of each model request made under a budget (sent as the request's
   * maxOutputTokens, and counted in what it needs). Default 4096.
   */
  maxOutputTokens?: number;
}

/** SdkOptions.budget: a TokenBudget for every call of this Sdk, and a total. */
export interface SdkBudget extends TokenBudget {
  /** Everything this Sdk may spend, over all its calls and agent runs. */
  totalTokens?: number;
}
