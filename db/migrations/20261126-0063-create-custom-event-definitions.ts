import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Custom event definitions: a name (fixed at creation) and an optional schema (JSON text: a flat
 * map of payload key to type). Deleting is soft and frees the name: `live_name` holds the name
 * while live and NULL once deleted, so the unique index covers live definitions only, in both
 * dialects (names are lower-case by rule, so no case folding is needed).
 */
export const createCustomEventDefinitions: Migration = {
  name: '20261126-0063-create-custom-event-definitions',
  ...createTable('custom_event_definitions', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    table.string('name', 100).notNullable();
    table.string('live_name', 100).nullable();
    table.text('schema').nullable();
    timestamp(table, 'created_at').notNullable();
    // Null until the first update.
    timestamp(table, 'updated_at').nullable();
    timestamp(table, 'deleted_at').nullable();
    table.unique(['team_id', 'live_name']);
    table.index(['team_id', 'id']);
  }),
};
