import { createTable, timestamp, uuid, type Migration } from './migration.js';

/** Every webhook delivery attempt: what came back (status, bounded body) or why nothing did. */
export const createWebhookAttempts: Migration = {
  name: '20261123-0032-create-webhook-attempts',
  ...createTable('webhook_attempts', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'delivery_id').notNullable();
    uuid(table, 'team_id').notNullable();
    // null when no HTTP response came (refused address, connection error, timeout)
    table.integer('status_code').nullable();
    table.text('response', 'mediumtext').nullable();
    table.text('error').nullable();
    table.integer('duration_ms').notNullable();
    timestamp(table, 'created_at').notNullable();
    table.index(['delivery_id', 'id']);
    table.index(['created_at']);
  }),
};
