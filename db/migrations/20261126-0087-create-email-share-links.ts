import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Share links of emails (POST /emails/{id}/share): the page at /share/{token} shows the email
 * without a credential, so only the token's SHA-256 is kept. `source` says which table
 * `email_id` points into (a sent email or a received one); no foreign key for that reason, and
 * retention deletes expired rows.
 */
export const createEmailShareLinks: Migration = {
  name: '20261126-0087-create-email-share-links',
  ...createTable('email_share_links', (table) => {
    uuid(table, 'id').primary();
    table.string('token_hash', 64).notNullable().unique();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    uuid(table, 'email_id').notNullable();
    table.string('source', 10).notNullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'expires_at').notNullable();
    timestamp(table, 'revoked_at').nullable();
    table.index(['team_id', 'email_id']);
    table.index(['expires_at']);
  }),
};
