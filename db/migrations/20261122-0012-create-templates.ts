import { createTable, timestamp, uuid, type Migration } from './migration.js';

export const createTemplates: Migration = {
  name: '20261122-0012-create-templates',
  ...createTable('templates', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    table.string('name', 255).notNullable();
    table.string('alias', 63).nullable();
    // Lower-cased alias of a live template; NULL once deleted, which frees the alias.
    table.string('alias_normalized', 63).nullable();
    table.string('status', 16).notNullable();
    uuid(table, 'current_version_id').notNullable();
    uuid(table, 'published_version_id').nullable();
    table.text('brand_overrides').nullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
    timestamp(table, 'published_at').nullable();
    timestamp(table, 'deleted_at').nullable();
    table.unique(['team_id', 'alias_normalized']);
    table.index(['team_id', 'updated_at', 'id']);
  }),
};
