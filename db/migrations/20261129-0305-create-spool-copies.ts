import { dialectOfKnex } from '../dialect.js';
import { timestamp, type Migration } from './migration.js';

/**
 * spool_copies: with spool.copyToDatabase (several nodes), every spool record (accepted mail,
 * received raw mail) is also written here, in parts within MariaDB's packet limit, so that a node
 * reading a record from another node's segment (an MTA sending what another node's API accepted)
 * finds it, and a Galera cluster holds it on every member before the API answers. Keyed by the
 * record's address in its segment, which the rows that refer to it keep.
 */
export const createSpoolCopies: Migration = {
  name: '20261129-0305-create-spool-copies',
  async up(knex) {
    if (await knex.schema.hasTable('spool_copies')) return;
    await knex.schema.createTable('spool_copies', (table) => {
      table.string('segment', 80).notNullable();
      table.bigInteger('offset').notNullable();
      table.integer('part').notNullable();
      table.integer('length').notNullable();
      // A part is at most 1 MiB (db/spool-copies.ts): MEDIUMBLOB holds 16 MiB.
      table.specificType('bytes', dialectOfKnex(knex) === 'mysql' ? 'MEDIUMBLOB' : 'BLOB').notNullable();
      timestamp(table, 'created_at').notNullable();
      table.primary(['segment', 'offset', 'part']);
      table.index(['created_at']);
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('spool_copies');
  },
};
