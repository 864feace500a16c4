import { createTable, timestamp, type Migration } from './migration.js';

/**
 * One row per running process that holds claims (Idempotency-Keys in flight): a claim whose
 * process lease is gone or expired belongs to a dead process and may be taken over at once.
 */
export const createProcessLeases: Migration = {
  name: '20261125-0044-create-process-leases',
  ...createTable('process_leases', (table) => {
    table.string('id', 64).primary();
    table.string('node', 255).notNullable();
    table.integer('pid').notNullable();
    timestamp(table, 'started_at').notNullable();
    timestamp(table, 'expires_at').notNullable();
    table.index(['expires_at']);
  }),
};
