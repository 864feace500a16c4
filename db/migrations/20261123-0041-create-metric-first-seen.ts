import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * What the metric roll-up has already counted once: unique opens and clicks per (email,
 * recipient), attempted per email. `id` is a hash of kind, email and recipient.
 */
export const createMetricFirstSeen: Migration = {
  name: '20261123-0041-create-metric-first-seen',
  ...createTable('metric_first_seen', (table) => {
    table.string('id', 64).primary();
    uuid(table, 'team_id').notNullable();
    timestamp(table, 'created_at').notNullable();
    table.index(['created_at'], 'metric_first_seen_created');
  }),
};
