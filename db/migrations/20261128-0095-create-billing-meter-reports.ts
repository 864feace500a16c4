import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Overage reported to the payment provider's meter, one row per team, billing period and
 * report window. A row is written `pending` before the provider is called and marked `accepted`
 * when it answers; a pending row is sent again with the same identifier (the provider dedupes
 * on it) until accepted, so an increase is never reported twice nor lost.
 */
export const createBillingMeterReports: Migration = {
  name: '20261128-0095-create-billing-meter-reports',
  ...createTable('billing_meter_reports', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    table.string('customer_id', 191).notNullable();
    /** The billing period the overage belongs to: [period_start, period_end). */
    timestamp(table, 'period_start').notNullable();
    timestamp(table, 'period_end').notNullable();
    timestamp(table, 'window_start').notNullable();
    /** `${team_id}:${period_start}:${window_start}`: the meter event's idempotency identifier. */
    table.string('identifier', 191).notNullable().unique();
    /** Emails above the plan's allowance added since the previous report of the period. */
    table.integer('quantity').notNullable();
    /** The event's timestamp at the provider (inside the period). */
    timestamp(table, 'event_at').notNullable();
    table.string('status', 16).notNullable();
    table.integer('attempts').notNullable().defaultTo(0);
    table.string('last_error', 500).nullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'accepted_at').nullable();
    table.index(['team_id', 'period_start'], 'billing_meter_reports_team_period');
    table.index(['status'], 'billing_meter_reports_status');
  }),
};
