import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Segments: a name and an immutable filter (JSON text, null for explicit membership only).
 * Deleted segments stay for the broadcasts that named them; `live_name` as for topics.
 */
export const createSegments: Migration = {
  name: '20261126-0052-create-segments',
  ...createTable('segments', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    table.string('name', 200).notNullable();
    table.string('live_name', 200).nullable();
    table.text('filter').nullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'deleted_at').nullable();
    table.unique(['team_id', 'live_name']);
    table.index(['team_id', 'id']);
  }),
};
