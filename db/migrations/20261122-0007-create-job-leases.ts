import { createTable, timestamp, type Migration } from './migration.js';

export const createJobLeases: Migration = {
  name: '20261122-0007-create-job-leases',
  ...createTable('job_leases', (table) => {
    table.string('name', 100).primary();
    table.string('holder', 100).notNullable();
    timestamp(table, 'expires_at').notNullable();
  }),
};
