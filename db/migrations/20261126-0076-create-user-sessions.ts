import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Dashboard sessions. Only the SHA-256 of the cookie's token is stored: a copy of this table
 * (a backup, a dump) does not let anyone log in.
 */
export const createUserSessions: Migration = {
  name: '20261126-0076-create-user-sessions',
  ...createTable('user_sessions', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    table.string('token_hash', 64).notNullable().unique('user_sessions_token_hash_unique');
    uuid(table, 'current_team_id').nullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'last_seen_at').notNullable();
    timestamp(table, 'expires_at').notNullable();
    timestamp(table, 'revoked_at').nullable();
    table.index(['user_id'], 'user_sessions_user_id');
    table.index(['expires_at'], 'user_sessions_expires_at');
  }),
};
