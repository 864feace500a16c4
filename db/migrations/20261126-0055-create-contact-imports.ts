import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Contact imports and the failed rows they keep (the first thousand), one change: the import
 * feature. `rows_done` is the resume point: the number of the file's records whose writes have
 * committed, updated in the same transaction as each batch's rows, so an import interrupted by
 * a restart continues after the last committed batch and never writes a row twice. The row is
 * also the import's audit entry (who uploaded what, when, with which options, and the counts).
 */
const imports = createTable('contact_imports', (table) => {
  uuid(table, 'id').primary();
  uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
  uuid(table, 'api_key_id').nullable();
  table.string('status', 20).notNullable();
  table.string('file_name', 255).nullable();
  table.bigInteger('file_size').notNullable();
  // The uploaded file is deleted seven days after completion; the counts stay.
  timestamp(table, 'file_deleted_at').nullable();
  // JSON: the column plan resolved from the header at upload, and the options.
  table.text('plan').notNullable();
  table.integer('rows_done').notNullable().defaultTo(0);
  for (const count of ['total', 'created', 'updated', 'skipped', 'failed'])
    table.integer(count).notNullable().defaultTo(0);
  table.string('failure_reason', 500).nullable();
  // The process lease id of the worker running it, and until when its claim holds.
  table.string('lease_owner', 120).nullable();
  timestamp(table, 'lease_until').nullable();
  timestamp(table, 'created_at').notNullable();
  timestamp(table, 'started_at').nullable();
  timestamp(table, 'completed_at').nullable();
  timestamp(table, 'updated_at').notNullable();
  table.index(['team_id', 'id']);
  table.index(['status', 'id']);
  table.index(['completed_at']);
});

const failures = createTable('contact_import_failures', (table) => {
  uuid(table, 'import_id').notNullable().references('id').inTable('contact_imports').onDelete('CASCADE');
  uuid(table, 'team_id').notNullable();
  // The row as a spreadsheet numbers it: the header is row 1.
  table.integer('row').notNullable();
  table.string('email', 320).nullable();
  table.string('reason', 300).notNullable();
  table.primary(['import_id', 'row']);
});

export const createContactImports: Migration = {
  name: '20261126-0055-create-contact-imports',
  async up(knex) {
    await imports.up(knex);
    await failures.up(knex);
  },
  async down(knex) {
    await failures.down(knex);
    await imports.down(knex);
  },
};
