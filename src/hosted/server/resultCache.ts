/** What the server asks of its result cache, in memory (cache.ts) or in Redis (redis.ts). */
export interface ResultCache {
  get(key: string): Promise<unknown | undefined>;
  set(key: string, value: unknown): Promise<void>;
  close(): Promise<void>;
}
