import type { Knex } from 'knex';
import { readTimestamp } from '../../../db/dialect.js';

export type IpWarmup = { address: string; startedOn: string; createdAt: Date };

/** The `ip_warmups` table: addresses warming up and the UTC day their schedule started. */
export class IpWarmupRepository {
  constructor(private readonly knex: Knex) {}

  async list(): Promise<IpWarmup[]> {
    const rows = (await this.knex('ip_warmups').orderBy('address')) as Array<Record<string, unknown>>;
    return rows.map((row) => ({
      address: String(row.address),
      startedOn: String(row.started_on),
      createdAt: readTimestamp(row.created_at),
    }));
  }

  /** Starts (or restarts on another day) an address's warm-up. */
  async upsert(warmup: IpWarmup): Promise<void> {
    await this.knex.transaction(async (trx) => {
      await trx('ip_warmups').where({ address: warmup.address }).delete();
      await trx('ip_warmups').insert({
        address: warmup.address,
        started_on: warmup.startedOn,
        created_at: warmup.createdAt,
      });
    });
  }

  async remove(address: string): Promise<boolean> {
    return (await this.knex('ip_warmups').where({ address }).delete()) === 1;
  }
}
