import type { Knex } from 'knex';
import { readTimestamp } from '../../../db/dialect.js';
import { isUniqueViolation } from '../../../db/errors.js';

export type DestinationHold = { domain: string; reason: string | null; heldBy: string | null; createdAt: Date };

/** The `destination_holds` table: recipient domains whose mail waits until an operator releases it. */
export class DestinationHoldRepository {
  constructor(private readonly knex: Knex) {}

  async list(): Promise<DestinationHold[]> {
    const rows = (await this.knex('destination_holds').orderBy('domain')) as Array<Record<string, unknown>>;
    return rows.map((row) => ({
      domain: String(row.domain),
      reason: (row.reason as string | null) ?? null,
      heldBy: (row.held_by as string | null) ?? null,
      createdAt: readTimestamp(row.created_at),
    }));
  }

  /** False when the domain was already held (the first hold, its reason and author, stay). */
  async add(hold: DestinationHold, trx: Knex = this.knex): Promise<boolean> {
    try {
      await trx('destination_holds').insert({
        domain: hold.domain,
        reason: hold.reason,
        held_by: hold.heldBy,
        created_at: hold.createdAt,
      });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  async remove(domain: string, trx: Knex = this.knex): Promise<boolean> {
    return (await trx('destination_holds').where({ domain }).delete()) === 1;
  }

  /** Which of `domains` are held now: one lookup by primary key, nothing when no domain is given. */
  async heldAmong(domains: Iterable<string>, trx: Knex = this.knex): Promise<Set<string>> {
    const wanted = [...new Set(domains)];
    if (wanted.length === 0) return new Set();
    const rows = (await trx('destination_holds').select('domain').whereIn('domain', wanted)) as Array<{
      domain: string;
    }>;
    return new Set(rows.map((row) => row.domain));
  }
}
