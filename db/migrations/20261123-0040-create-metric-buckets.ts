import { createTable, timestamp, uuid, type Migration } from './migration.js';

// The counted metrics as of this migration (a migration never changes with the code).
const COUNTERS = [
  'received',
  'delivered',
  'complained',
  'suppressed',
  'bounced',
  'bounced_transient',
  'bounced_permanent',
  'bounced_undetermined',
  'opened',
  'clicked',
  'delivery_delayed',
  'failed',
  'sent',
  'unique_opened',
  'unique_clicked',
  'attempted',
];

/**
 * One-minute metric buckets rolled up from events: one row per team, minute, domain, email and
 * broadcast, one counter column per counted metric. Absent dimension values are '' rather
 * than NULL, because NULLs never collide in a unique index and the roll-up adds to a row by it.
 */
export const createMetricBuckets: Migration = {
  name: '20261123-0040-create-metric-buckets',
  ...createTable('metric_buckets', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable();
    timestamp(table, 'minute').notNullable();
    table.string('domain_id', 36).notNullable().defaultTo('');
    table.string('email_id', 36).notNullable().defaultTo('');
    table.string('broadcast_id', 36).notNullable().defaultTo('');
    for (const metric of COUNTERS) table.integer(metric).notNullable().defaultTo(0);
    table.unique(['team_id', 'minute', 'domain_id', 'email_id', 'broadcast_id'], { indexName: 'metric_buckets_key' });
    table.index(['team_id', 'email_id'], 'metric_buckets_email');
    table.index(['minute'], 'metric_buckets_minute');
  }),
};
