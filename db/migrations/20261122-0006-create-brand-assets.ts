import { createTable, timestamp, uuid, type Migration } from './migration.js';

export const createBrandAssets: Migration = {
  name: '20261122-0006-create-brand-assets',
  ...createTable('brand_assets', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    table.string('sha256', 64).notNullable();
    table.string('content_type', 40).notNullable();
    table.string('extension', 8).notNullable();
    table.integer('bytes').notNullable();
    table.integer('width').nullable();
    table.integer('height').nullable();
    timestamp(table, 'created_at').notNullable();
    table.unique(['team_id', 'sha256']);
    table.index(['sha256']);
  }),
};
