import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Access (svco_) and refresh (svcr_) tokens, by hash. A rotated refresh token keeps its row
 * with rotated_at set: presenting it again is the replay that revokes the whole grant.
 */
export const createOAuthTokens: Migration = {
  name: '20261126-0083-create-oauth-tokens',
  ...createTable('oauth_tokens', (table) => {
    table.string('token_hash', 64).primary();
    uuid(table, 'grant_id').notNullable().references('id').inTable('oauth_grants').onDelete('CASCADE');
    table.string('kind', 10).notNullable();
    // Access tokens: the scopes they carry (a refresh may narrow them). Refresh tokens: the grant's.
    table.text('scope').notNullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'expires_at').nullable();
    timestamp(table, 'rotated_at').nullable();
    timestamp(table, 'revoked_at').nullable();
    table.index(['grant_id']);
  }),
};
