import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * A team's contacts. Deleting a contact erases the row (personal data gone); consent records
 * outlive it under an address hash. Paging is newest first by (team_id, id): ids are UUIDv7.
 */
export const createContacts: Migration = {
  name: '20261126-0047-create-contacts',
  ...createTable('contacts', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    // As given, for display; uniqueness and matching use the lower-cased copy.
    table.string('email', 320).notNullable();
    table.string('email_normalized', 320).notNullable();
    table.string('first_name', 200).nullable();
    table.string('last_name', 200).nullable();
    table.boolean('unsubscribed').notNullable().defaultTo(false);
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
    table.unique(['team_id', 'email_normalized']);
    table.index(['team_id', 'id']);
    table.index(['team_id', 'created_at']);
  }),
};
