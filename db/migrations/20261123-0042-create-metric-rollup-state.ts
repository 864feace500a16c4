import { createTable, timestamp, type Migration } from './migration.js';

/**
 * Where the metric roll-up is: the last event it counted (event ids are time-ordered UUIDv7)
 * and the end of the last one-minute bucket it completed. One row, locked by each roll-up
 * transaction so that concurrent roll-ups take turns.
 */
export const createMetricRollupState: Migration = {
  name: '20261123-0042-create-metric-rollup-state',
  ...createTable('metric_rollup_state', (table) => {
    table.string('name', 32).primary();
    table.string('last_event_id', 36).notNullable().defaultTo('');
    timestamp(table, 'completed_until').nullable();
    timestamp(table, 'updated_at').notNullable();
  }),
};
