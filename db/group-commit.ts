import type { Knex } from 'knex';

type Item = { work: (trx: Knex.Transaction) => Promise<unknown>; resolve: (value: unknown) => void; reject: (err: unknown) => void };

/**
 * Group commit: writes arriving while transactions are committing wait and then commit together
 * in the next one, so N concurrent requests pay for a few durable commits instead of N, and no
 * request waits for a timer. Up to `parallel` groups commit at once (the database merges their
 * log flushes too). If a grouped transaction fails, its items are retried one by one so a
 * single bad item fails alone.
 */
export class GroupCommitter {
  private queue: Item[] = [];
  private running = 0;

  constructor(private readonly knex: Knex, private readonly parallel = 4, private readonly maxGroup = 200) {}

  run<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.running < this.parallel) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running++;
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, this.maxGroup);
        await this.commitGroup(group);
      }
    } finally {
      this.running--;
    }
  }

  private async commitGroup(group: Item[]): Promise<void> {
    if (group.length === 1) return this.commitAlone(group[0]!);
    let results: unknown[];
    try {
      results = await this.knex.transaction(async (trx) => {
        const out: unknown[] = [];
        for (const item of group) out.push(await item.work(trx));
        return out;
      });
    } catch {
      for (const item of group) await this.commitAlone(item);
      return;
    }
    group.forEach((item, i) => item.resolve(results[i]));
  }

  private async commitAlone(item: Item): Promise<void> {
    try {
      item.resolve(await this.knex.transaction((trx) => item.work(trx)));
    } catch (err) {
      item.reject(err);
    }
  }
}
