import { createTable, timestamp, type Migration } from './migration.js';

/**
 * The TLS reports we sent (RFC 8460), one row per policy domain, day and destination (`rua`
 * URI): a rerun of the daily job sends only what is not yet `sent`.
 */
export const createTlsReportsSent: Migration = {
  name: '20261128-0211-create-tls-reports-sent',
  ...createTable('tls_reports_sent', (table) => {
    table.string('id', 36).notNullable().primary();
    table.string('policy_domain', 255).notNullable();
    table.string('day', 10).notNullable();
    table.string('report_id', 320).notNullable();
    table.string('destination_key', 64).notNullable();
    table.string('destination', 2000).notNullable();
    table.string('status', 10).notNullable();
    table.string('error', 1000).nullable();
    table.integer('attempts').notNullable().defaultTo(0);
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
    table.unique(['policy_domain', 'day', 'destination_key'], { indexName: 'tls_reports_sent_unique' });
    table.index(['day'], 'tls_reports_sent_day');
  }),
};
