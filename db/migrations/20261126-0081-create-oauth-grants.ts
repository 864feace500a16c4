import { createTable, timestamp, uuid, type Migration } from './migration.js';

/** An OAuth grant: one approval of a client by a team (and the person who approved, if known). */
export const createOAuthGrants: Migration = {
  name: '20261126-0081-create-oauth-grants',
  ...createTable('oauth_grants', (table) => {
    uuid(table, 'id').primary();
    table.string('client_id', 64).notNullable();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    uuid(table, 'user_id').nullable();
    // Space-separated scopes the person approved.
    table.text('scope').notNullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'last_used_at').nullable();
    timestamp(table, 'revoked_at').nullable();
    table.index(['team_id', 'id']);
    table.index(['client_id']);
  }),
};
