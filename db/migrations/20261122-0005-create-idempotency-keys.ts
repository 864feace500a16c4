import { createTable, timestamp, uuid, type Migration } from './migration.js';

export const createIdempotencyKeys: Migration = {
  name: '20261122-0005-create-idempotency-keys',
  ...createTable('idempotency_keys', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable();
    // SHA-256 of the caller's key (up to 256 characters) keeps the unique index small.
    table.string('key_hash', 64).notNullable();
    table.string('fingerprint', 64).notNullable();
    table.string('state', 20).notNullable();
    timestamp(table, 'locked_until').notNullable();
    table.integer('response_status').nullable();
    table.text('response_body', 'mediumtext').nullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'expires_at').notNullable();
    table.unique(['team_id', 'key_hash']);
    table.index(['expires_at']);
  }),
};
