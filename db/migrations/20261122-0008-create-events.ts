import { createTable, timestamp, uuid, type Migration } from './migration.js';

export const createEvents: Migration = {
  name: '20261122-0008-create-events',
  ...createTable('events', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable();
    table.string('type', 64).notNullable();
    table.text('data', 'mediumtext').notNullable();
    timestamp(table, 'created_at').notNullable();
    table.index(['team_id', 'id']);
    table.index(['team_id', 'type', 'id']);
    table.index(['created_at']);
  }),
};
