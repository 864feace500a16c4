import type { Knex } from 'knex';
import { isUniqueViolation } from '../../../db/errors.js';
import { retryConflicts } from '../../../db/retry.js';

/**
 * A database lease per job name, so that with schedulers on several nodes each run of a job
 * happens on one of them. A holder that dies loses the lease when it expires, or at once when
 * `isDead` says so (holders are process-lease ids: a scheduler killed mid-run must not hold a
 * long job, a broadcast's fan-out say, for the job's whole timeout).
 */
export class JobLease {
  constructor(private readonly knex: Knex) {}

  /**
   * Takes the lease of `name` for `holder`. On a Galera cluster two schedulers taking it through
   * two members at once both see their UPDATE (or INSERT) succeed, and the later commit is
   * refused at certification: trying again then finds the lease taken.
   */
  acquire(
    name: string,
    holder: string,
    ttlMs: number,
    now: Date,
    isDead: (holder: string) => Promise<boolean> = async () => false,
  ): Promise<boolean> {
    return retryConflicts(() => this.take(name, holder, ttlMs, now, isDead));
  }

  private async take(
    name: string,
    holder: string,
    ttlMs: number,
    now: Date,
    isDead: (holder: string) => Promise<boolean>,
  ): Promise<boolean> {
    const expiresAt = new Date(now.getTime() + ttlMs);
    const taken = await this.knex('job_leases')
      .where({ name })
      .andWhere((q) => q.where('expires_at', '<=', now).orWhere({ holder }))
      .update({ holder, expires_at: expiresAt });
    if (taken === 1) return true;
    const current = (await this.knex('job_leases').where({ name }).first('holder')) as { holder: string } | undefined;
    if (current && current.holder !== holder && (await isDead(current.holder))) {
      // Only if it is still the dead holder's: two nodes noticing at once take it once.
      const takenOver = await this.knex('job_leases')
        .where({ name, holder: current.holder })
        .update({ holder, expires_at: expiresAt });
      return takenOver === 1;
    }
    try {
      await this.knex('job_leases').insert({ name, holder, expires_at: expiresAt });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async release(name: string, holder: string): Promise<void> {
    await this.knex('job_leases').where({ name, holder }).delete();
  }
}
