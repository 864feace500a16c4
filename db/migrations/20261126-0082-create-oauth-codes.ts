import { createTable, timestamp, uuid, type Migration } from './migration.js';

/** Authorization codes (svcc_...), single use, kept by hash: a consumed code is remembered so a replay is caught. */
export const createOAuthCodes: Migration = {
  name: '20261126-0082-create-oauth-codes',
  ...createTable('oauth_codes', (table) => {
    table.string('code_hash', 64).primary();
    uuid(table, 'grant_id').notNullable().references('id').inTable('oauth_grants').onDelete('CASCADE');
    table.string('redirect_uri', 2048).notNullable();
    table.string('code_challenge', 43).notNullable();
    table.string('resource', 2048).nullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'expires_at').notNullable();
    timestamp(table, 'consumed_at').nullable();
    table.index(['grant_id']);
  }),
};
