import { createTable, timestamp, uuid, type Migration } from './migration.js';

/** Every delivery attempt: where it left from, where it went, what came back, the transcript. */
export const createDeliveryAttempts: Migration = {
  name: '20261123-0018-create-delivery-attempts',
  ...createTable('delivery_attempts', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'delivery_id').notNullable();
    uuid(table, 'email_id').notNullable();
    uuid(table, 'team_id').notNullable();
    table.string('egress_ip', 64).nullable();
    table.string('mx_host', 255).nullable();
    // delivered, deferred, bounced
    table.string('outcome', 16).notNullable();
    table.text('reply').nullable();
    table.text('transcript', 'mediumtext').nullable();
    table.integer('duration_ms').notNullable();
    timestamp(table, 'created_at').notNullable();
    table.index(['delivery_id']);
    table.index(['created_at']);
  }),
};
