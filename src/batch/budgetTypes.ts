// INTERIM: the token-budget types agreed in BUDGET-INTERFACE.md, which the budget branch adds to
// src/types.ts with their enforcement. Only the types are here, so the batch layer compiles before
// that merge; at the merge this file goes and its importers take them from '../types.js'.

/** Tokens a model request used (prompt + completion, as the provider reports them). */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** A shared account of tokens, asked before each model request and told after it what it used. */
export interface TokenAccount {
  /** Tokens left; Infinity for no limit. */
  remaining(): Promise<number> | number;
  /** Records what one request used. */
  spend(usage: TokenUsage): Promise<void> | void;
}

/** Limits on what model calls may spend. */
export interface TokenBudget {
  maxTokens?: number;
  account?: TokenAccount;
}
