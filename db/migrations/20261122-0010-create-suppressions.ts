import { createTable, timestamp, uuid, type Migration } from './migration.js';

export const createSuppressions: Migration = {
  name: '20261122-0010-create-suppressions',
  ...createTable('suppressions', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    // As sent, for display; matching uses the lower-cased copy.
    table.string('email', 320).notNullable();
    table.string('email_normalized', 320).notNullable();
    table.string('origin', 20).notNullable();
    uuid(table, 'source_id').nullable();
    timestamp(table, 'created_at').notNullable();
    table.unique(['team_id', 'email_normalized']);
    table.index(['team_id', 'id']);
  }),
};
