import type { Knex } from 'knex';
import { commitPart, type CommitPart, type GroupCommitter } from './group-commit.js';

/**
 * Writes the rows of every unit committing in one group that were given under the same key:
 * one call (typically one multi-row INSERT) for many concurrent requests.
 */
export type GroupWriter<P> = (trx: Knex.Transaction, payloads: P[]) => Promise<void>;

/**
 * The writes of one piece of work (an API request, a submitted message), committed together
 * in one transaction or not at all. A service joins the unit its caller opened and adds its
 * rows; the caller adds its own participants (the request log, the Idempotency-Key's stored
 * answer) and commits once. Units committing at the same time share one durable commit (group
 * commit, see group-commit.ts), which is what keeps a send at one fsync.
 */
export class UnitOfWork {
  private readonly parts: CommitPart[] = [];
  private state: 'open' | 'committing' | 'done' = 'open';

  constructor(private readonly committer: GroupCommitter) {}

  /** Rows to write when the unit commits. Writes of one key are written by one call of `writer`. */
  write<P>(key: string, payload: P, writer: GroupWriter<P>): void {
    if (this.state !== 'open') throw new Error('this unit of work has already committed');
    this.parts.push(commitPart(key, payload, writer));
  }

  get isEmpty(): boolean {
    return this.parts.length === 0;
  }

  /** Commits every write of the unit atomically; resolves once durable. A unit commits once. */
  async commit(): Promise<void> {
    if (this.state !== 'open') throw new Error('this unit of work has already committed');
    this.state = 'committing';
    try {
      if (this.parts.length > 0) await this.committer.commit(this.parts);
    } finally {
      this.state = 'done';
    }
  }
}

/** Opens units of work on one process's group committer. */
export class UnitsOfWork {
  constructor(private readonly committer: GroupCommitter) {}

  begin(): UnitOfWork {
    return new UnitOfWork(this.committer);
  }

  /** Runs `work` in a fresh unit and commits it: for callers that are not part of a larger unit. */
  async run<T>(work: (unit: UnitOfWork) => Promise<T> | T): Promise<T> {
    const unit = this.begin();
    const result = await work(unit);
    await unit.commit();
    return result;
  }
}
