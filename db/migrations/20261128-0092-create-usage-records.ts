import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * The usage ledger: append-only records of what a team used, per calendar month (UTC) and
 * category. Each record commits in the transaction of what it counts (an email's acceptance, a
 * received email's storage, an AI request's answer), so usage never disagrees with the rows it
 * counts, and a payment provider's meter is fed from it (never from a re-count). Rows are never
 * updated.
 */
export const createUsageRecords: Migration = {
  name: '20261128-0092-create-usage-records',
  ...createTable('usage_records', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable();
    /** YYYY-MM of `at` (UTC): the period a total is asked for. */
    table.string('period', 7).notNullable();
    table.string('category', 32).notNullable();
    table.integer('quantity').notNullable();
    timestamp(table, 'at').notNullable();
    /** What the record counts (an email id, a broadcast id, an AI request), for an audit. */
    table.string('source_id', 64).nullable();
    table.index(['team_id', 'period', 'category'], 'usage_records_team_period');
  }),
};
