import type { Knex } from 'knex';
import { isUniqueViolation } from '../../../db/errors.js';

/**
 * A database lease per job name, so that with schedulers on several nodes each run of a job
 * happens on one of them. A holder that dies loses the lease when it expires.
 */
export class JobLease {
  constructor(private readonly knex: Knex) {}

  async acquire(name: string, holder: string, ttlMs: number, now: Date): Promise<boolean> {
    const expiresAt = new Date(now.getTime() + ttlMs);
    const taken = await this.knex('job_leases')
      .where({ name })
      .andWhere((q) => q.where('expires_at', '<=', now).orWhere({ holder }))
      .update({ holder, expires_at: expiresAt });
    if (taken === 1) return true;
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
