import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Single-use account tokens (email verification, password reset), one table with a `kind`.
 * Stored hashed like sessions; `used_at` makes a token single-use.
 */
export const createAccountTokens: Migration = {
  name: '20261126-0077-create-account-tokens',
  ...createTable('account_tokens', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    table.string('kind', 32).notNullable();
    table.string('token_hash', 64).notNullable().unique('account_tokens_token_hash_unique');
    timestamp(table, 'expires_at').notNullable();
    timestamp(table, 'used_at').nullable();
    timestamp(table, 'created_at').notNullable();
    table.index(['user_id', 'kind'], 'account_tokens_user_kind');
    table.index(['expires_at'], 'account_tokens_expires_at');
  }),
};
