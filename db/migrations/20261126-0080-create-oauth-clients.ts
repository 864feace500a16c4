import { createTable, timestamp, type Migration } from './migration.js';

/**
 * OAuth clients (RFC 7591 dynamic registration). A deleted client keeps its row (deleted_at):
 * the registration limits count rows per IP and per day, and a deleted id must stay unknown.
 */
export const createOAuthClients: Migration = {
  name: '20261126-0080-create-oauth-clients',
  ...createTable('oauth_clients', (table) => {
    // The public client id itself (svcoc_...): it is what every request names.
    table.string('id', 64).primary();
    table.string('client_name', 255).notNullable();
    // JSON array of exact redirect URIs (at most 10).
    table.text('redirect_uris').notNullable();
    table.string('grant_types', 64).notNullable();
    table.text('scope').notNullable();
    table.string('client_uri', 2048).nullable();
    table.string('logo_uri', 2048).nullable();
    table.string('software_id', 255).nullable();
    table.string('software_version', 255).nullable();
    // SHA-256 of the registration access token (svcor_...): the token itself is never stored.
    table.string('registration_token_hash', 64).notNullable().unique();
    table.string('registration_ip', 64).notNullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
    timestamp(table, 'deleted_at').nullable();
    table.index(['registration_ip', 'created_at']);
    table.index(['created_at']);
  }),
};
