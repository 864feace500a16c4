import type { Knex } from 'knex';
import { isUniqueViolation } from '../../../db/errors.js';
import { retryConflicts } from '../../../db/retry.js';

export type LeaseRequest = {
  name: string;
  holder: string;
  ttlMs: number;
  now: Date;
  /**
   * The cron tick this run is for (the schedule's time, the same on every node whatever its
   * clock's drift): a tick another node already ran is not run again. Unset: a run on demand.
   */
  tick?: Date;
  /** Whether a holder (a process-lease id) is known to be dead: its lease is taken at once. */
  isDead?: (holder: string) => Promise<boolean>;
};

/**
 * A database lease per job name, so that with schedulers on several nodes each run of a job
 * happens on one of them, once per tick. A holder that dies loses the lease when it expires, or
 * at once when `isDead` says so (holders are process-lease ids: a scheduler killed mid-run must
 * not hold a long job, a broadcast's fan-out say, for the job's whole timeout).
 */
export class JobLease {
  constructor(private readonly knex: Knex) {}

  /**
   * On a Galera cluster two schedulers taking the lease through two members at once both see
   * their UPDATE (or INSERT) succeed, and the later commit is refused at certification: trying
   * again then finds the lease taken.
   */
  acquire(request: LeaseRequest): Promise<boolean> {
    return retryConflicts(() => this.take(request));
  }

  /** Frees the lease; the row stays, with the tick it ran for. */
  async release(name: string, holder: string, now: Date): Promise<void> {
    await this.knex('job_leases').where({ name, holder }).update({ expires_at: now });
  }

  private async take({ name, holder, ttlMs, now, tick, isDead }: LeaseRequest): Promise<boolean> {
    const changes = { holder, expires_at: new Date(now.getTime() + ttlMs), ...(tick ? { last_tick: tick } : {}) };
    const notRunForTick = (query: Knex.QueryBuilder) =>
      tick ? query.andWhere((q) => q.whereNull('last_tick').orWhere('last_tick', '<', tick)) : query;
    const taken = await notRunForTick(
      this.knex('job_leases')
        .where({ name })
        .andWhere((q) => q.where('expires_at', '<=', now).orWhere({ holder })),
    ).update(changes);
    if (taken === 1) return true;
    const current = (await this.knex('job_leases').where({ name }).first('holder', 'expires_at')) as
      { holder: string } | undefined;
    if (current) {
      if (current.holder === holder || !isDead || !(await isDead(current.holder))) return false;
      // Only if it is still the dead holder's: two nodes noticing at once take it once.
      const takenOver = await notRunForTick(this.knex('job_leases').where({ name, holder: current.holder })).update(
        changes,
      );
      return takenOver === 1;
    }
    try {
      await this.knex('job_leases').insert({ name, ...changes });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }
}
