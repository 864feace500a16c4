import type { Knex } from 'knex';
import { retryConflicts } from './retry.js';

/**
 * Rows to write in the next group: every part of the group with the same `key` is written by one
 * `flush(trx, payloads)` call (the first part's flush: parts of one key share the function).
 */
export type CommitPart = {
  key: string;
  payload: unknown;
  flush: (trx: Knex.Transaction, payloads: unknown[]) => Promise<void>;
};

/** A typed part: the flush of `key` gets back exactly the payloads given under it. */
export function commitPart<P>(
  key: string,
  payload: P,
  flush: (trx: Knex.Transaction, payloads: P[]) => Promise<void>,
): CommitPart {
  return { key, payload, flush: flush as CommitPart['flush'] };
}

type Settle = { resolve: (value: unknown) => void; reject: (err: unknown) => void };
type WorkItem = Settle & { kind: 'work'; work: (trx: Knex.Transaction) => Promise<unknown> };
type BatchItem = Settle & { kind: 'batch'; parts: CommitPart[] };
type Item = WorkItem | BatchItem;

/**
 * Tries of a group that lost to another writer, about 0.4 s in all: SQLite answers a
 * transaction that read and then wants to write while another process writes with SQLITE_BUSY
 * at once (its busy timeout cannot apply there), so these tries are the waiting.
 */
const CONFLICT_ATTEMPTS = 12;

/**
 * Group commit: writes arriving while transactions are committing wait and then commit together
 * in the next one, so N concurrent requests pay for a few durable commits instead of N, and no
 * request waits for a timer. By default one group commits at a time and the next one gathers
 * meanwhile, so under load groups grow instead of transactions multiplying: every statement
 * costs the Node process far more CPU than the database spends on it. If a grouped transaction
 * fails, its items are retried one by one so a single bad item fails alone. A transaction that
 * lost to another writer (a deadlock; SQLite's writer lock or a WAL snapshot gone stale while
 * other processes write the same file) is run again first, a few times: it committed nothing.
 *
 * Items of one group are independent of each other: their order inside the transaction is not
 * promised. Parts (`commit`) with the same key are written by one call of their flush function,
 * so a group of N accepted emails is one multi-row INSERT rather than N statements: every
 * statement is a round trip and a good share of a request's CPU on the Node side. The parts of
 * one call always commit together (also when a failed group is retried item by item).
 */
export class GroupCommitter {
  private queue: Item[] = [];
  private running = 0;

  constructor(
    private readonly knex: Knex,
    private readonly parallel = 1,
    private readonly maxGroup = 200,
  ) {}

  run<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) =>
      this.enqueue({ kind: 'work', work, resolve: resolve as (value: unknown) => void, reject }),
    );
  }

  /** Adds the parts to the next group, atomically together; resolves once that group has committed. */
  commit(parts: CommitPart[]): Promise<void> {
    return new Promise<void>((resolve, reject) =>
      this.enqueue({ kind: 'batch', parts, resolve: resolve as (value: unknown) => void, reject }),
    );
  }

  private enqueue(item: Item): void {
    this.queue.push(item);
    if (this.running < this.parallel) void this.drain();
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
      results = await retryConflicts(() => this.knex.transaction((trx) => runItems(trx, group)), CONFLICT_ATTEMPTS);
    } catch {
      for (const item of group) await this.commitAlone(item);
      return;
    }
    group.forEach((item, i) => item.resolve(results[i]));
  }

  private async commitAlone(item: Item): Promise<void> {
    try {
      item.resolve(
        (await retryConflicts(() => this.knex.transaction((trx) => runItems(trx, [item])), CONFLICT_ATTEMPTS))[0],
      );
    } catch (err) {
      item.reject(err);
    }
  }
}

/** Runs the group's work items in order, then one flush per batch key; results by position. */
async function runItems(trx: Knex.Transaction, items: Item[]): Promise<unknown[]> {
  const results: unknown[] = new Array(items.length);
  const batches = new Map<string, { flush: CommitPart['flush']; payloads: unknown[] }>();
  for (const [i, item] of items.entries()) {
    if (item.kind === 'work') {
      results[i] = await item.work(trx);
      continue;
    }
    for (const part of item.parts) {
      const batch = batches.get(part.key);
      if (batch) batch.payloads.push(part.payload);
      else batches.set(part.key, { flush: part.flush, payloads: [part.payload] });
    }
  }
  for (const { flush, payloads } of batches.values()) await flush(trx, payloads);
  return results;
}
