import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * The webhook outbox: one row per (event, endpoint), written in the transaction that records
 * the event. A worker claims due rows with a lease kept in next_attempt_at (a worker that dies
 * leaves rows that come due again by themselves); settled rows have no next_attempt_at.
 */
export const createWebhookDeliveries: Migration = {
  name: '20261123-0031-create-webhook-deliveries',
  ...createTable('webhook_deliveries', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable();
    uuid(table, 'endpoint_id').notNullable();
    uuid(table, 'event_id').notNullable();
    table.string('event_type', 64).notNullable();
    // pending (no attempt yet), attempting (failed, retry scheduled), success, failed
    table.string('status', 16).notNullable();
    table.integer('attempts').notNullable().defaultTo(0);
    timestamp(table, 'next_attempt_at').nullable();
    table.string('lease_owner', 120).nullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
    table.unique(['endpoint_id', 'event_id']);
    table.index(['next_attempt_at']);
    table.index(['created_at']);
  }),
};
