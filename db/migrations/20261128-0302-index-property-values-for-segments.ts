import { dialectOfKnex } from '../dialect.js';
import type { Migration } from './migration.js';

const FOLDED = 'contact_property_values_property_folded_contact';
const NUMBER = 'contact_property_values_property_number_contact';
const OLD_STRING = 'contact_property_values_property_id_string_value_index';
const OLD_NUMBER = 'contact_property_values_property_id_number_value_index';

/**
 * The indexes a segment condition on a property reads: (property_id, folded_value, contact_id)
 * and (property_id, number_value, contact_id). A condition is one range read of one of them that
 * yields contact ids without touching the table (the compiler's uncorrelated `contacts.id IN
 * (SELECT contact_id ...)`). They replace (property_id, string_value) and (property_id,
 * number_value): nothing reads the first any more, the second is the new one's prefix, and each
 * index is a write every import row pays.
 *
 * MariaDB builds them in place without locking writers (ALGORITHM=INPLACE, LOCK=NONE); SQLite has
 * one writer at a time anyway. Runs after the backfill (20261128-0301): an index built once over
 * the filled column costs less than one maintained through a million updates.
 */
export const indexPropertyValuesForSegments: Migration = {
  name: '20261128-0302-index-property-values-for-segments',
  async up(knex) {
    if (dialectOfKnex(knex) === 'mysql') {
      await knex.raw(
        `ALTER TABLE contact_property_values
           ADD INDEX IF NOT EXISTS ${FOLDED} (property_id, folded_value, contact_id),
           ADD INDEX IF NOT EXISTS ${NUMBER} (property_id, number_value, contact_id),
           ALGORITHM=INPLACE, LOCK=NONE`,
      );
      await knex.raw(
        `ALTER TABLE contact_property_values DROP INDEX IF EXISTS ${OLD_STRING}, DROP INDEX IF EXISTS ${OLD_NUMBER},
           ALGORITHM=INPLACE, LOCK=NONE`,
      );
      return;
    }
    await knex.raw(
      `CREATE INDEX IF NOT EXISTS ${FOLDED} ON contact_property_values (property_id, folded_value, contact_id)`,
    );
    await knex.raw(
      `CREATE INDEX IF NOT EXISTS ${NUMBER} ON contact_property_values (property_id, number_value, contact_id)`,
    );
    await knex.raw(`DROP INDEX IF EXISTS ${OLD_STRING}`);
    await knex.raw(`DROP INDEX IF EXISTS ${OLD_NUMBER}`);
  },
  async down(knex) {
    if (dialectOfKnex(knex) === 'mysql') {
      await knex.raw(
        `ALTER TABLE contact_property_values
           ADD INDEX IF NOT EXISTS ${OLD_STRING} (property_id, string_value),
           ADD INDEX IF NOT EXISTS ${OLD_NUMBER} (property_id, number_value)`,
      );
      await knex.raw(
        `ALTER TABLE contact_property_values DROP INDEX IF EXISTS ${FOLDED}, DROP INDEX IF EXISTS ${NUMBER}`,
      );
      return;
    }
    await knex.raw(`CREATE INDEX IF NOT EXISTS ${OLD_STRING} ON contact_property_values (property_id, string_value)`);
    await knex.raw(`CREATE INDEX IF NOT EXISTS ${OLD_NUMBER} ON contact_property_values (property_id, number_value)`);
    await knex.raw(`DROP INDEX IF EXISTS ${FOLDED}`);
    await knex.raw(`DROP INDEX IF EXISTS ${NUMBER}`);
  },
};
