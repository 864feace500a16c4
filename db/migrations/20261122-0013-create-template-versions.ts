import { createTable, timestamp, uuid, type Migration } from './migration.js';

/** Versions are never deleted: a send records the exact version it used. */
export const createTemplateVersions: Migration = {
  name: '20261122-0013-create-template-versions',
  ...createTable('template_versions', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'template_id').notNullable();
    table.integer('version').notNullable();
    table.string('from_address', 512).nullable();
    table.text('subject').nullable();
    table.text('reply_to').nullable();
    table.text('html', 'mediumtext').notNullable();
    table.text('text', 'mediumtext').nullable();
    table.text('variables').notNullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
    table.unique(['template_id', 'version']);
  }),
};
