import type { Knex } from 'knex';
import { readTimestamp } from '../../../db/dialect.js';

export type ProcessLeaseRow = { id: string; node: string; pid: number; expiresAt: Date };

export class ProcessLeaseRepository {
  constructor(private readonly knex: Knex) {}

  async upsert(lease: { id: string; node: string; pid: number; startedAt: Date; expiresAt: Date }): Promise<void> {
    const updated = await this.knex('process_leases').where({ id: lease.id }).update({ expires_at: lease.expiresAt });
    if (updated === 0) {
      await this.knex('process_leases').insert({
        id: lease.id,
        node: lease.node,
        pid: lease.pid,
        started_at: lease.startedAt,
        expires_at: lease.expiresAt,
      });
    }
  }

  async find(id: string): Promise<ProcessLeaseRow | undefined> {
    const row = (await this.knex('process_leases').where({ id }).first()) as
      { id: string; node: string; pid: number; expires_at: unknown } | undefined;
    return row
      ? { id: row.id, node: row.node, pid: Number(row.pid), expiresAt: readTimestamp(row.expires_at) }
      : undefined;
  }

  async remove(id: string): Promise<void> {
    await this.knex('process_leases').where({ id }).delete();
  }

  async removeExpiredBefore(at: Date): Promise<number> {
    return this.knex('process_leases').where('expires_at', '<', at).delete();
  }
}
