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

  async delete(key: string): Promise<void> {
    this.values.delete(key);
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
    // An absent bucket is a full one, so only a bucket that has refilled completely may go (as
    // Redis expires it): one that is merely idle still holds what it refused, whatever its window.
    for (const [key, bucket] of this.buckets) if (bucket.fullAtMs <= now) this.buckets.delete(key);
  }
}
