import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Webhook endpoints: where a team's events are POSTed. Signing secrets are sealed with the
 * master key; during a rotation's grace period the previous one still signs.
 */
export const createWebhookEndpoints: Migration = {
  name: '20261123-0030-create-webhook-endpoints',
  ...createTable('webhook_endpoints', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable();
    table.string('url', 2048).notNullable();
    // JSON array of subscribed event types
    table.text('events').notNullable();
    // enabled, disabled
    table.string('status', 16).notNullable();
    // user (PATCH status disabled) or failing (disabled after a long run of failed attempts)
    table.string('disabled_reason', 16).nullable();
    table.text('secret_sealed').notNullable();
    table.text('previous_secret_sealed').nullable();
    timestamp(table, 'previous_secret_expires_at').nullable();
    // Start of the current run of consecutive failed attempts; null after a success.
    timestamp(table, 'failing_since').nullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
    table.index(['team_id', 'status']);
    table.index(['team_id', 'id']);
  }),
};
