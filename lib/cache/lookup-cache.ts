/**
 * A short-lived read-through cache for rows every request looks up (API keys with their team,
 * verified sending domains). Entries live `ttlMs` at most: that bounds how long a change made
 * by another process can go unseen. Changes made in this process call invalidate(), which
 * empties the cache at once; a load that was in flight across an invalidate() is handed to its
 * caller but not kept, so it cannot put a row read before the change back in.
 *
 * Only found rows are cached: an unknown token or an unverified domain is looked up every time,
 * so creating a key or verifying a domain needs no invalidation to take effect.
 */
export class LookupCache {
  private readonly entries = new Map<string, { value: unknown; expiresAt: number }>();
  /** Loads in flight by key: when an entry expires under load, one query refills it, not one per request. */
  private readonly loading = new Map<string, { generation: number; promise: Promise<unknown> }>();
  private generation = 0;
  private readonly listeners: Array<() => void> = [];

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  /** The cached value of `key`, or `load()`'s (kept for ttlMs when found and nothing changed meanwhile). */
  async get<T extends object>(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    if (this.ttlMs <= 0) return load();
    const hit = this.entries.get(key);
    const now = this.now();
    if (hit && hit.expiresAt > now) return hit.value as T;
    if (hit) this.entries.delete(key);
    const pending = this.loading.get(key);
    // Joining a load that started before an invalidate() could return a row read before the change.
    if (pending && pending.generation === this.generation) return pending.promise as Promise<T | undefined>;
    const generation = this.generation;
    const promise = load().then((value) => {
      // The TTL counts from the read, so a row is never served longer than ttlMs after it was read.
      if (value !== undefined && generation === this.generation) this.keep(key, value, now);
      return value;
    });
    this.loading.set(key, { generation, promise });
    try {
      return await promise;
    } finally {
      if (this.loading.get(key)?.promise === promise) this.loading.delete(key);
    }
  }

  /** Replaces a cached value without a load (the caller changed it and knows the new value). */
  update<T extends object>(key: string, value: T): void {
    if (this.entries.has(key)) this.entries.set(key, { value, expiresAt: this.entries.get(key)!.expiresAt });
  }

  /** Forgets everything. `propagate: false` when the news came from another worker (no echo). */
  invalidate(options: { propagate?: boolean } = {}): void {
    this.generation++;
    this.entries.clear();
    if (options.propagate !== false) for (const listener of this.listeners) listener();
  }

  /** Called on every local invalidate(): the API cluster tells the other workers. */
  onInvalidate(listener: () => void): void {
    this.listeners.push(listener);
  }

  private keep(key: string, value: unknown, now: number): void {
    // Oldest first out: Map iteration is insertion order.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
  }
}
