import { createTable, timestamp, type Migration } from './migration.js';

/**
 * Webhook events of the payment provider already applied: the id is inserted in the transaction
 * that applies the event, so a redelivered event (providers deliver at least once) changes
 * nothing. Kept 30 days (the purge-billing-webhook-events job); providers stop retrying sooner.
 */
export const createBillingWebhookEvents: Migration = {
  name: '20261128-0094-create-billing-webhook-events',
  ...createTable('billing_webhook_events', (table) => {
    table.string('id', 191).primary();
    table.string('provider', 16).notNullable();
    table.string('type', 100).notNullable();
    timestamp(table, 'processed_at').notNullable();
    table.index(['processed_at']);
  }),
};
