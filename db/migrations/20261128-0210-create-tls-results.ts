import { createTable, timestamp, type Migration } from './migration.js';

/**
 * Outbound TLS session counts for SMTP TLS reporting (RFC 8460): one row per UTC day, policy
 * and outcome (success, or a failure with its sending/receiving details), whose `sessions`
 * the MTA adds to in batches. `row_key` is a hash of every dimension (the dimensions are too
 * long together for a MariaDB unique index), so concurrent MTA processes add to one row.
 */
export const createTlsResults: Migration = {
  name: '20261128-0210-create-tls-results',
  ...createTable('tls_results', (table) => {
    table.string('row_key', 64).notNullable().primary();
    table.string('day', 10).notNullable();
    table.string('policy_domain', 255).notNullable();
    table.string('policy_type', 20).notNullable();
    table.text('policy_string').notNullable();
    table.string('mx_host', 255).nullable();
    table.string('result_type', 40).notNullable();
    table.string('sending_ip', 45).nullable();
    table.string('receiving_mx_hostname', 255).nullable();
    table.string('receiving_ip', 45).nullable();
    table.string('additional_info', 500).nullable();
    table.bigInteger('sessions').notNullable().defaultTo(0);
    timestamp(table, 'updated_at').notNullable();
    table.index(['day', 'policy_domain'], 'tls_results_day_domain');
  }),
};
