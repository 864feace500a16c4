import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * One authorization-code round trip in progress (sign-in or test): found by the SHA-256 of its
 * `state`, deleted when the callback uses it (single use), dead after 10 minutes.
 */
export const createSsoFlows: Migration = {
  name: '20261129-0312-create-sso-flows',
  ...createTable('sso_flows', (table) => {
    table.string('state_hash', 64).primary();
    uuid(table, 'team_id').notNullable();
    table.string('purpose', 16).notNullable();
    table.string('nonce', 128).notNullable();
    table.string('code_verifier', 128).notNullable();
    // Who started a test (the admin); null for a sign-in.
    uuid(table, 'user_id').nullable();
    timestamp(table, 'expires_at').notNullable().index();
    timestamp(table, 'created_at').notNullable();
  }),
};
