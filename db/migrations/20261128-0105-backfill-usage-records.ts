import type { Knex } from 'knex';
import { newId } from '../../lib/ids.js';
import { dialectOfKnex, readTimestamp } from '../dialect.js';
import type { Migration } from './migration.js';

/** The `source_id` of every record this migration writes (and deletes again when replayed). */
export const BACKFILL_SOURCE = 'backfill';

type Category = 'transactional_emails' | 'marketing_emails' | 'received_emails';

/** The rows each category counts, as the quotas count them (and received emails that were kept). */
const SOURCES: Record<Category, (knex: Knex) => Knex.QueryBuilder> = {
  transactional_emails: (knex) => knex('emails').whereNull('broadcast_id'),
  marketing_emails: (knex) => knex('emails').whereNotNull('broadcast_id'),
  received_emails: (knex) => knex('received_emails').whereNull('dropped_reason'),
};

/**
 * Backfills the usage ledger (20261128-0092) on an installation that sent and received mail
 * before it existed, so that this month's totals agree with the quotas' counts from the first
 * request after the upgrade (and last month's are there for a payment provider's meter).
 *
 * Per team, category and day (UTC) of last month and this month, one record (`source_id`
 * 'backfill') dated at the day's start, so the ledger's monthly and daily totals are both right
 * (and a payment provider's period that starts on another day than the first, to the day).
 * Older rows are not counted, nor rows created once the ledger began recording: from the first
 * record the application wrote itself, if there is one (a replay on a database already in
 * use), else from now. Safe to run again: it deletes its own earlier
 * records first (in the migration's transaction where the database keeps one, see `up`).
 */
export const backfillUsageRecords: Migration = {
  name: '20261128-0105-backfill-usage-records',
  async up(knex) {
    // `knex` is the migration's transaction: on SQLite the backfill commits with the migration
    // or not at all. On MySQL the DDL of earlier migrations of the same run has already ended
    // that transaction (implicit commit), so these statements may commit one by one; a run cut
    // short is not recorded as applied, and the next run deletes what it left and starts over.
    await knex('usage_records').where({ source_id: BACKFILL_SOURCE }).delete();
    const cutoff = await recordingStarted(knex);
    const from = new Date(Date.UTC(cutoff.getUTCFullYear(), cutoff.getUTCMonth() - 1, 1));
    const rows: Array<Record<string, unknown>> = [];
    for (const category of Object.keys(SOURCES) as Category[]) {
      for (const { team_id: teamId, first, n } of await countPerTeamAndDay(
        knex,
        SOURCES[category](knex),
        from,
        cutoff,
      )) {
        const at = readTimestamp(first);
        const day = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
        rows.push({
          id: newId(),
          team_id: teamId,
          period: day.toISOString().slice(0, 7),
          category,
          quantity: Number(n),
          at: day,
          source_id: BACKFILL_SOURCE,
        });
      }
    }
    for (let i = 0; i < rows.length; i += 500) await knex('usage_records').insert(rows.slice(i, i + 500));
  },
  async down(knex) {
    if (await knex.schema.hasTable('usage_records'))
      await knex('usage_records').where({ source_id: BACKFILL_SOURCE }).delete();
  },
};

/** When the application's own ledger records begin: the earliest email or received record, or now. */
async function recordingStarted(knex: Knex): Promise<Date> {
  const now = new Date();
  const first = (await knex('usage_records')
    .whereIn('category', Object.keys(SOURCES))
    .where((q) => q.whereNull('source_id').orWhereNot('source_id', BACKFILL_SOURCE))
    .orderBy('at')
    .first('at')) as { at: unknown } | undefined;
  if (!first) return now;
  const at = readTimestamp(first.at);
  return at < now ? at : now;
}

/** The day (UTC) of `created_at`, for grouping: SQLite keeps epoch milliseconds, MySQL a UTC DATETIME. */
const dayOf = (knex: Knex) =>
  dialectOfKnex(knex) === 'mysql' ? knex.raw('DATE(created_at)') : knex.raw('CAST(created_at / 86400000 AS INTEGER)');

/** Rows of [from, to) per team and UTC day: how many, and the first one's created_at. */
async function countPerTeamAndDay(
  knex: Knex,
  query: Knex.QueryBuilder,
  from: Date,
  to: Date,
): Promise<Array<{ team_id: string; first: unknown; n: number | string }>> {
  return (await query
    .where('created_at', '>=', from)
    .where('created_at', '<', to)
    .groupBy('team_id', dayOf(knex))
    .select('team_id')
    .min({ first: 'created_at' })
    .count({ n: '*' })) as Array<{ team_id: string; first: unknown; n: number | string }>;
}
