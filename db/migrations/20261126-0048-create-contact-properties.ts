import { createTable, timestamp, uuid, type Migration } from './migration.js';

/** Declared contact properties: key and type, once per team (keys unique case-insensitively). */
export const createContactProperties: Migration = {
  name: '20261126-0048-create-contact-properties',
  ...createTable('contact_properties', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    table.string('key', 50).notNullable();
    table.string('key_normalized', 50).notNullable();
    table.string('type', 10).notNullable();
    // JSON text of the fallback (a string or a number), null when none.
    table.string('fallback_value', 600).nullable();
    timestamp(table, 'created_at').notNullable();
    table.unique(['team_id', 'key_normalized']);
    table.index(['team_id', 'id']);
  }),
};
