import { createTable, timestamp, uuid, type Migration } from './migration.js';

export const createApiKeys: Migration = {
  name: '20261122-0003-create-api-keys',
  ...createTable('api_keys', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    table.string('name', 255).notNullable();
    table.string('permission', 20).notNullable();
    uuid(table, 'domain_id').nullable();
    table.string('key_prefix', 16).notNullable();
    // SHA-256 of the token: the token itself is never stored.
    table.string('token_hash', 64).notNullable().unique();
    table.string('status', 20).notNullable().defaultTo('active');
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'last_used_at').nullable();
    timestamp(table, 'revoked_at').nullable();
    table.index(['team_id', 'id']);
  }),
};
