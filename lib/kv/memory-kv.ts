import { refillBucket, type KeyValueStore, type TokenBucketResult } from './kv.js';

/** In-process KeyValueStore: correct for one process, which is what the embedded default is. */
export class MemoryKeyValueStore implements KeyValueStore {
  readonly kind = 'memory' as const;
  private readonly buckets = new Map<string, { tokens: number; updatedMs: number }>();
  private readonly values = new Map<string, { value: string; expiresMs: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    // Buckets and keys expire; sweep so a long-running node does not grow without bound.
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async takeToken(key: string, capacity: number, ratePerSecond: number): Promise<TokenBucketResult> {
    const now = Date.now();
    const result = refillBucket(this.buckets.get(key), capacity, ratePerSecond, now);
    this.buckets.set(key, { tokens: result.tokens, updatedMs: now });
    return {
      allowed: result.allowed,
      remaining: result.remaining,
      msUntilFull: result.msUntilFull,
      msUntilToken: result.msUntilToken,
    };
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const current = this.values.get(key);
    if (current && current.expiresMs > Date.now()) return false;
    this.values.set(key, { value, expiresMs: Date.now() + ttlMs });
    return true;
  }

  async get(key: string): Promise<string | null> {
    const current = this.values.get(key);
    if (!current || current.expiresMs <= Date.now()) return null;
    return current.value;
  }

  async delete(key: string): Promise<void> {
    this.values.delete(key);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.values) if (entry.expiresMs <= now) this.values.delete(key);
    // A bucket idle for a minute is full again, the same as an absent one.
    for (const [key, bucket] of this.buckets) if (now - bucket.updatedMs > 60_000) this.buckets.delete(key);
  }
}
