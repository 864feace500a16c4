import type { Knex } from 'knex';
import { bulkInsertObjects } from '../../../db/bulk-insert.js';
import type { Clock } from '../../../lib/clock.js';
import { newId } from '../../../lib/ids.js';
import { USAGE_CATEGORIES, type UsageCategory, type UsageEntry, type UsageTotals } from './usage.types.js';

/** Months of records kept before the current one: a year back, for a year-on-year look. */
export const USAGE_MONTHS_KEPT = 12;

/** YYYY-MM of a date in UTC: the ledger's period. */
export const usagePeriod = (at: Date): string => at.toISOString().slice(0, 7);

/** The periods (months) a [from, to) range touches, oldest first. */
function periodsBetween(from: Date, to: Date): string[] {
  const periods: string[] = [];
  const cursor = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), 1));
  while (cursor < to) {
    periods.push(usagePeriod(cursor));
    cursor.setUTCMonth(cursor.getUTCMonth() + 1);
  }
  return periods;
}

const emptyTotals = (): UsageTotals =>
  Object.fromEntries(USAGE_CATEGORIES.map((category) => [category, 0])) as UsageTotals;

/**
 * The append-only usage ledger. Writers pass their own transaction, so a record commits with
 * what it counts or not at all; readers sum a team's records of a range. Totals are read by
 * (team, period, category), the table's index, then narrowed to the range.
 */
export class UsageLedger {
  constructor(
    private readonly knex: Knex,
    private readonly clock: Clock,
  ) {}

  /** Appends records in `trx` (the caller's transaction); a quantity of 0 writes nothing. */
  async record(trx: Knex | Knex.Transaction, entries: UsageEntry | UsageEntry[]): Promise<void> {
    const rows = (Array.isArray(entries) ? entries : [entries])
      .filter((entry) => entry.quantity > 0)
      .map((entry) => ({
        id: newId(),
        team_id: entry.teamId,
        period: usagePeriod(entry.at),
        category: entry.category,
        quantity: entry.quantity,
        at: entry.at,
        source_id: entry.sourceId ?? null,
      }));
    await bulkInsertObjects(trx, 'usage_records', rows);
  }

  /** Each category's total of a team's records with `at` in [from, to). */
  async totals(teamId: string, from: Date, to: Date, db: Knex | Knex.Transaction = this.knex): Promise<UsageTotals> {
    const rows: { category: string; total: number | string | null }[] = await db('usage_records')
      .where('team_id', teamId)
      .whereIn('period', periodsBetween(from, to))
      .where('at', '>=', from)
      .where('at', '<', to)
      .groupBy('category')
      .select('category')
      .sum({ total: 'quantity' });
    const totals = emptyTotals();
    for (const row of rows) {
      if ((USAGE_CATEGORIES as readonly string[]).includes(row.category))
        totals[row.category as UsageCategory] = Number(row.total ?? 0);
    }
    return totals;
  }

  /** One category's total of a team's records with `at` in [from, to). */
  async total(
    teamId: string,
    category: UsageCategory,
    from: Date,
    to: Date,
    db?: Knex | Knex.Transaction,
  ): Promise<number> {
    return (await this.totals(teamId, from, to, db))[category];
  }

  /** Deletes the records of months older than the current one and the USAGE_MONTHS_KEPT before it. */
  async purgeOld(): Promise<number> {
    const now = this.clock.now();
    return this.purgeBefore(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - USAGE_MONTHS_KEPT, 1)));
  }

  /**
   * Deletes the records of periods before `keepFrom`'s month, a batch at a time (short
   * statements on a live appliance); answers how many went. Totals are asked for the current
   * and recent months only, and a provider's meter is fed within its period.
   */
  async purgeBefore(keepFrom: Date, batch = 5000): Promise<number> {
    const cutoff = usagePeriod(keepFrom);
    let deleted = 0;
    for (;;) {
      const ids: string[] = await this.knex('usage_records').where('period', '<', cutoff).limit(batch).pluck('id');
      if (ids.length === 0) return deleted;
      deleted += await this.knex('usage_records').whereIn('id', ids).delete();
    }
  }
}
