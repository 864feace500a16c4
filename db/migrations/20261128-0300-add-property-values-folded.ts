import { dialectOfKnex } from '../dialect.js';
import type { Migration } from './migration.js';

/**
 * contact_property_values.folded_value: the string value case-folded in JavaScript
 * (foldPropertyString in core/audience/contacts/property-value-row.ts), which segment filters
 * compare through an index instead of LOWER(string_value) on every row. Nullable and last, so
 * MariaDB adds it in place of the table's metadata (ALGORITHM=INSTANT: no rebuild, no lock);
 * 20261128-0301 fills it for existing rows, 20261128-0302 indexes it.
 */
export const addPropertyValuesFolded: Migration = {
  name: '20261128-0300-add-property-values-folded',
  async up(knex) {
    if (await knex.schema.hasColumn('contact_property_values', 'folded_value')) return;
    if (dialectOfKnex(knex) === 'mysql')
      await knex.raw(
        'ALTER TABLE contact_property_values ADD COLUMN folded_value VARCHAR(500) NULL, ALGORITHM=INSTANT',
      );
    else await knex.schema.alterTable('contact_property_values', (table) => table.string('folded_value', 500));
  },
  async down(knex) {
    if (await knex.schema.hasColumn('contact_property_values', 'folded_value'))
      await knex.schema.alterTable('contact_property_values', (table) => table.dropColumn('folded_value'));
  },
};
