/**
 * The read-side twin of group commit: look-ups arriving while one query is in flight wait for it
 * and then go to the database together in the next query, so N concurrent requests pay for a
 * few round trips instead of N (every statement costs the Node process far more CPU than the
 * database spends on an indexed read). Nothing waits on a timer: an idle reader queries at once.
 *
 * Every look-up is answered by a query that started after it was asked, so it sees every write
 * committed before it was asked, as a query of its own would.
 */
export class CoalescedReads<K, V> {
  private queue: Array<{ key: K; resolve: (value: V) => void; reject: (err: unknown) => void }> = [];
  private running = false;

  /** `readMany` answers the keys in order; `maxBatch` bounds one query's size. */
  constructor(
    private readonly readMany: (keys: K[]) => Promise<V[]>,
    private readonly maxBatch = 100,
  ) {}

  read(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      this.queue.push({ key, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const values = await this.readMany(batch.map((item) => item.key));
          batch.forEach((item, i) => item.resolve(values[i]!));
        } catch (err) {
          for (const item of batch) item.reject(err);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
