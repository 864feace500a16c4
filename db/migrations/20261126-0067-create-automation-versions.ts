import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Immutable versions of an automation's graph: creating an automation writes number 1, and
 * every PATCH carrying steps and connections writes the next number; no row is ever updated.
 * A run pins a version by `id`, so a later publication never changes a run in flight.
 * `steps` and `connections` are the validated JSON arrays as published.
 */
export const createAutomationVersions: Migration = {
  name: '20261126-0067-create-automation-versions',
  ...createTable('automation_versions', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'automation_id').notNullable().references('id').inTable('automations').onDelete('CASCADE');
    table.integer('number').notNullable();
    table.text('steps', 'mediumtext').notNullable();
    table.text('connections', 'mediumtext').notNullable();
    timestamp(table, 'created_at').notNullable();
    table.unique(['automation_id', 'number']);
  }),
};
