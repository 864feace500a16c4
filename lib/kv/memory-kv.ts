import { refillBucket, refundBucket, type KeyValueStore, type TokenBucketResult } from './kv.js';

/** How often (by this store's clock) expired keys and idle buckets are dropped. */
const SWEEP_EVERY_MS = 60_000;

export type MemoryKeyValueStoreOptions = {
  /** The store's "now" in epoch ms (default Date.now), so tests can move time instead of waiting. */
  now?: () => number;
};

/** In-process KeyValueStore: correct for one process, which is what the embedded default is. */
export class MemoryKeyValueStore implements KeyValueStore {
  readonly kind = 'memory' as const;
  /** Each bucket with the time it will be full again: only then may the sweep forget it. */
  private readonly buckets = new Map<string, { tokens: number; updatedMs: number; fullAtMs: number }>();
  private readonly values = new Map<string, { value: string; expiresMs: number }>();
  private readonly counters = new Map<string, { count: number; expiresMs: number }>();
  /** Each semaphore's holders with when their slot expires. */
  private readonly slots = new Map<string, Map<string, number>>();
  private readonly now: () => number;
  private lastSweepMs: number;

  constructor(options: MemoryKeyValueStoreOptions = {}) {
    this.now = options.now ?? Date.now;
    this.lastSweepMs = this.now();
  }

  async takeToken(key: string, capacity: number, ratePerSecond: number): Promise<TokenBucketResult> {
    const now = this.now();
    this.sweepIfDue(now);
    const result = refillBucket(this.buckets.get(key), capacity, ratePerSecond, now);
    this.buckets.set(key, { tokens: result.tokens, updatedMs: now, fullAtMs: now + result.msUntilFull });
    return {
      allowed: result.allowed,
      remaining: result.remaining,
      msUntilFull: result.msUntilFull,
      msUntilToken: result.msUntilToken,
    };
  }

  async returnToken(key: string, capacity: number, ratePerSecond: number): Promise<void> {
    const now = this.now();
    const state = this.buckets.get(key);
    if (!state) return;
    const result = refundBucket(state, capacity, ratePerSecond, now);
    if (result.msUntilFull <= 0) this.buckets.delete(key);
    else this.buckets.set(key, { tokens: result.tokens, updatedMs: now, fullAtMs: now + result.msUntilFull });
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    this.sweepIfDue(now);
    const current = this.values.get(key);
    if (current && current.expiresMs > now) return false;
    this.values.set(key, { value, expiresMs: now + ttlMs });
    return true;
  }

  async get(key: string): Promise<string | null> {
    const current = this.values.get(key);
    if (!current || current.expiresMs <= this.now()) return null;
    return current.value;
  }

  async incrementUpTo(key: string, by: number, limit: number, ttlMs: number): Promise<number | null> {
    const now = this.now();
    this.sweepIfDue(now);
    const current = this.counters.get(key);
    const live = current && current.expiresMs > now ? current : { count: 0, expiresMs: now + ttlMs };
    if (live.count + by > limit) return null;
    this.counters.set(key, { count: live.count + by, expiresMs: live.expiresMs });
    return live.count + by;
  }

  async counter(key: string): Promise<number> {
    const current = this.counters.get(key);
    return current && current.expiresMs > this.now() ? current.count : 0;
  }

  async acquireSlot(key: string, holder: string, limit: number, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const holders = this.slots.get(key) ?? new Map<string, number>();
    for (const [name, expiresMs] of holders) if (expiresMs <= now) holders.delete(name);
    if (holders.size >= limit) return false;
    holders.set(holder, now + ttlMs);
    this.slots.set(key, holders);
    return true;
  }

  async releaseSlot(key: string, holder: string): Promise<void> {
    const holders = this.slots.get(key);
    holders?.delete(holder);
    if (holders?.size === 0) this.slots.delete(key);
  }

  async delete(key: string): Promise<void> {
    this.values.delete(key);
    this.counters.delete(key);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {}

  /**
   * Keys and buckets expire; dropping them on the way (entries only grow when written, so no
   * timer is needed) keeps a long-running node from growing without bound.
   */
  private sweepIfDue(now: number): void {
    if (now - this.lastSweepMs < SWEEP_EVERY_MS) return;
    this.lastSweepMs = now;
    for (const [key, entry] of this.values) if (entry.expiresMs <= now) this.values.delete(key);
    for (const [key, entry] of this.counters) if (entry.expiresMs <= now) this.counters.delete(key);
    // An absent bucket is a full one, so only a bucket that has refilled completely may go (as
    // Redis expires it): one that is merely idle still holds what it refused, whatever its window.
    for (const [key, bucket] of this.buckets) if (bucket.fullAtMs <= now) this.buckets.delete(key);
  }
}
