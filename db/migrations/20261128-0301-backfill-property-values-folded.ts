import type { Knex } from 'knex';
import { foldCase } from '../../lib/text/case-fold.js';
import { dialectOfKnex } from '../dialect.js';
import type { Migration } from './migration.js';

/** Rows per batch (whole contacts: a batch ends with its last contact's last row); one short transaction each. */
export const BACKFILL_ROWS_PER_BATCH = 10_000;

/**
 * Fills contact_property_values.folded_value (20261128-0300) for the rows written before it
 * existed, ONLINE: outside the migration's transaction (`transaction: false`), in batches of
 * BACKFILL_ROWS_PER_BATCH rows along the primary key, one short transaction each, so
 * writers wait for at most one batch and never for the whole table.
 *
 * Each batch is one UPDATE with SQL LOWER() (both dialects fold ASCII exactly as foldCase does)
 * and, for the rare values beyond ASCII, one UPDATE per row with foldCase's answer. Only rows
 * whose folded_value is still NULL are touched, so a run cut short (kill -9, a restart) resumes
 * cheaply: the next run skips what is done. Rows that the application writes meanwhile already
 * carry their fold (every writer builds rows through propertyValueRow).
 *
 * Why a migration and not a background job: until every row is folded, segment counts would be
 * wrong, and at 1,000,000 contacts x 5 properties the backfill takes tens of seconds on the
 * 2-core machine (87 s on MariaDB, 19 s on SQLite), which an upgrade can wait for. Rows a
 * previous release writes after it (an upgrade migrates before the nodes switch; a rollback) are
 * folded by the scheduler's fold-property-values job.
 */
export const backfillPropertyValuesFolded: Migration = {
  name: '20261128-0301-backfill-property-values-folded',
  transaction: false,
  async up(knex) {
    await backfillFolded(knex);
  },
  async down() {
    // The column goes with 20261128-0300's down.
  },
};

/** Runs the backfill; answers the rows folded. Exported for the benchmark and the tests. */
export async function backfillFolded(
  knex: Knex,
  options: { rowsPerBatch?: number; onBatch?: (done: { scanned: number; folded: number }) => void } = {},
): Promise<number> {
  const { rowsPerBatch = BACKFILL_ROWS_PER_BATCH, onBatch } = options;
  const mysql = dialectOfKnex(knex) === 'mysql';
  let from: string | null = null;
  let rows = 0;
  let scanned = 0;
  for (;;) {
    // The batch's last contact: an index-only walk of the primary key.
    const edge = (await knex('contact_property_values')
      .modify((q) => (from === null ? q : q.where('contact_id', '>', from)))
      .orderBy('contact_id')
      .offset(rowsPerBatch - 1)
      .first('contact_id')) as { contact_id: string } | undefined;
    const to = edge?.contact_id ?? null;
    rows += await knex.transaction(async (trx) => {
      const range = (q: Knex.QueryBuilder) => {
        if (from !== null) q.where('contact_id', '>', from);
        if (to !== null) q.where('contact_id', '<=', to);
        return q.whereNotNull('string_value').whereNull('folded_value');
      };
      // Lock the batch first (MariaDB) so the values read beyond ASCII are still the values when written.
      const wide = (await range(trx('contact_property_values'))
        .whereRaw(
          mysql
            ? 'LENGTH(string_value) <> CHAR_LENGTH(string_value)'
            : 'LENGTH(CAST(string_value AS BLOB)) <> LENGTH(string_value)',
        )
        .modify((q) => (mysql ? q.forUpdate() : q))
        .select('contact_id', 'property_id', 'string_value')) as Array<{
        contact_id: string;
        property_id: string;
        string_value: string;
      }>;
      const updated = (await range(trx('contact_property_values')).update({
        folded_value: trx.raw('LOWER(string_value)'),
      })) as number;
      for (const row of wide)
        await trx('contact_property_values')
          .where({ contact_id: row.contact_id, property_id: row.property_id })
          .update({ folded_value: foldCase(row.string_value) });
      return updated;
    });
    scanned += rowsPerBatch;
    onBatch?.({ scanned, folded: rows });
    if (to === null) return rows;
    from = to;
  }
}
