/**
 * The small shared-state interface the appliance needs from Redis: token buckets for rate limits
 * and short-lived keys. Production uses Redis so every process on every node shares the counts;
 * the in-process implementation is the embedded default for a single node.
 */
export type TokenBucketResult = {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Milliseconds until the bucket is full again. */
  msUntilFull: number;
  /** Milliseconds until one token is available (0 when allowed). */
  msUntilToken: number;
};

export interface KeyValueStore {
  readonly kind: 'redis' | 'memory';
  /** Takes one token from the bucket `key` (capacity tokens, refilled at ratePerSecond). */
  takeToken(key: string, capacity: number, ratePerSecond: number): Promise<TokenBucketResult>;
  /**
   * Gives back one token takeToken took from `key` (never above capacity): for limits that only
   * count failures, which take a token before the check (so concurrent attempts cannot all pass
   * one last token) and return it when the attempt did not fail.
   */
  returnToken(key: string, capacity: number, ratePerSecond: number): Promise<void>;
  /** Sets key to value only if absent; true when set. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  get(key: string): Promise<string | null>;
  /**
   * Adds `by` to the counter `key` unless that would take it above `limit`; returns the new
   * count, or null (unchanged) when it would. The counter expires ttlMs after it was created.
   */
  incrementUpTo(key: string, by: number, limit: number, ttlMs: number): Promise<number | null>;
  /** The counter's value (0 when absent). */
  counter(key: string): Promise<number>;
  /**
   * One of `limit` slots of `key` for `holder` (a semaphore across processes): true when taken.
   * A slot not released within ttlMs (its process died) frees itself.
   */
  acquireSlot(key: string, holder: string, limit: number, ttlMs: number): Promise<boolean>;
  releaseSlot(key: string, holder: string): Promise<void>;
  delete(key: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** The bucket arithmetic both implementations share (Redis runs the same steps in Lua). */
export function refillBucket(
  state: { tokens: number; updatedMs: number } | undefined,
  capacity: number,
  ratePerSecond: number,
  nowMs: number,
): TokenBucketResult & { tokens: number } {
  const elapsed = state ? Math.max(0, nowMs - state.updatedMs) : 0;
  const available = state ? Math.min(capacity, state.tokens + (elapsed * ratePerSecond) / 1000) : capacity;
  const allowed = available >= 1;
  const tokens = allowed ? available - 1 : available;
  return {
    allowed,
    tokens,
    remaining: Math.floor(tokens),
    msUntilFull: Math.ceil(((capacity - tokens) * 1000) / ratePerSecond),
    msUntilToken: allowed ? 0 : Math.ceil(((1 - tokens) * 1000) / ratePerSecond),
  };
}

/** The state after returning one token to a bucket (Redis runs the same steps in Lua); absent is full. */
export function refundBucket(
  state: { tokens: number; updatedMs: number } | undefined,
  capacity: number,
  ratePerSecond: number,
  nowMs: number,
): { tokens: number; msUntilFull: number } {
  if (!state) return { tokens: capacity, msUntilFull: 0 };
  const elapsed = Math.max(0, nowMs - state.updatedMs);
  const tokens = Math.min(capacity, state.tokens + (elapsed * ratePerSecond) / 1000 + 1);
  return { tokens, msUntilFull: Math.ceil(((capacity - tokens) * 1000) / ratePerSecond) };
}
