import type { Knex } from 'knex';
import { foldPropertyString } from './property-value-row.js';

/** Rows folded per string property per run: the catch-up stays a few short statements. */
const ROWS_PER_PROPERTY = 1000;

/**
 * Fills folded_value for string property values written without it. Every writer of this
 * release builds rows through propertyValueRow, and migration 20261128-0301 folded the rows
 * that existed; but an upgrade migrates before the nodes switch, and a rollback runs the
 * previous release on the migrated database: either writes rows without a fold, which segment
 * filters (they compare folded_value) would miss. One index probe per string property finds
 * them: (property_id, folded_value, contact_id) with folded_value IS NULL.
 */
export async function foldMissedPropertyValues(knex: Knex): Promise<{ folded: number }> {
  const properties = (await knex('contact_properties').where({ type: 'string' }).select('id')) as Array<{
    id: string;
  }>;
  let folded = 0;
  for (const { id } of properties) {
    const rows = (await knex('contact_property_values')
      .where({ property_id: id })
      .whereNull('folded_value')
      .whereNotNull('string_value')
      .limit(ROWS_PER_PROPERTY)
      .select('contact_id', 'string_value')) as Array<{ contact_id: string; string_value: string }>;
    for (const row of rows)
      // The value in the WHERE: a row rewritten meanwhile is left for the next run, never mis-folded.
      folded += (await knex('contact_property_values')
        .where({ contact_id: row.contact_id, property_id: id, string_value: row.string_value })
        .whereNull('folded_value')
        .update({ folded_value: foldPropertyString(row.string_value) })) as number;
  }
  return { folded };
}
