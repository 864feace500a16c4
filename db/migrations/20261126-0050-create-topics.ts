import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Subscription topics. Deleted topics stay (emails and consent records keep naming them):
 * `live_name` holds the lower-cased name while live and NULL once deleted, so the unique index
 * covers live topics only, in both dialects.
 */
export const createTopics: Migration = {
  name: '20261126-0050-create-topics',
  ...createTable('topics', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    table.string('name', 50).notNullable();
    table.string('live_name', 50).nullable();
    table.string('description', 200).nullable();
    table.string('default_subscription', 10).notNullable();
    table.string('visibility', 10).notNullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'deleted_at').nullable();
    table.unique(['team_id', 'live_name']);
    table.index(['team_id', 'id']);
  }),
};
