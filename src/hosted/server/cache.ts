// The server's result cache. A key is a hash of everything the result depends on: the page's
// snapshot text (so a changed page misses), the instruction, the schema, the selector and the model.

import { createHash } from 'node:crypto';
import type { Logger } from '../../logger.js';
import type { RedisConfig } from './redis-config.js';
import type { ResultCache } from './resultCache.js';

export type { ResultCache } from './resultCache.js';

export function cacheKey(parts: unknown[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(JSON.stringify(part) ?? 'undefined').update('\u0000');
  return hash.digest('hex');
}

/** Bounded, least recently used first out. Values are kept as JSON text: what a client gets is a copy. */
export class MemoryCache implements ResultCache {
  readonly #entries = new Map<string, string>();

  constructor(private readonly maxEntries = 1000) {}

  async get(key: string): Promise<unknown | undefined> {
    const text = this.#entries.get(key);
    if (text === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, text);
    return JSON.parse(text);
  }

  async set(key: string, value: unknown): Promise<void> {
    this.#entries.delete(key);
    this.#entries.set(key, JSON.stringify(value));
    while (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  async close(): Promise<void> {
    this.#entries.clear();
  }
}

/**
 * Redis when one is configured, so that instances behind one load balancer share results; memory
 * otherwise. Rejects when that Redis cannot be used, so a wrong configuration stops the server at start.
 */
export async function openResultCache(config: { redis?: RedisConfig }, logger: Logger): Promise<ResultCache> {
  if (!config.redis) return new MemoryCache();
  // Loaded on demand: a server without Redis loads neither this module nor the `redis` package.
  const { RedisCache } = await import('./redis.js');
  return RedisCache.connect(config.redis, logger);
}
