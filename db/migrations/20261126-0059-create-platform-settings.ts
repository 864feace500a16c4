import { createTable, timestamp, type Migration } from './migration.js';

/** Run-time switches an operator flips for every node at once (`mailroom marketing pause`). */
export const createPlatformSettings: Migration = {
  name: '20261126-0059-create-platform-settings',
  ...createTable('platform_settings', (table) => {
    table.string('key', 100).primary();
    table.string('value', 500).notNullable();
    timestamp(table, 'updated_at').notNullable();
  }),
};
