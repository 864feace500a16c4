/**
 * At most `limit` tasks at once per destination key, in this process: a destination that is
 * slow or rate-limiting cannot take every worker, and we never open more connections to one
 * domain than it is likely to tolerate. Waiting tasks run in arrival order.
 */
export class DestinationLimiter {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly limit: number) {}

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    await this.acquire(key);
    try {
      return await task();
    } finally {
      this.release(key);
    }
  }

  private acquire(key: string): Promise<void> {
    const count = this.active.get(key) ?? 0;
    if (count < this.limit) {
      this.active.set(key, count + 1);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(key) ?? [];
      queue.push(resolve);
      this.waiting.set(key, queue);
    });
  }

  private release(key: string): void {
    const next = this.waiting.get(key)?.shift();
    if (next) return next();
    if (this.waiting.get(key)?.length === 0) this.waiting.delete(key);
    const count = (this.active.get(key) ?? 1) - 1;
    if (count <= 0) this.active.delete(key);
    else this.active.set(key, count);
  }
}
