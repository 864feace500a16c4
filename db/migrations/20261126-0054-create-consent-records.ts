import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Every change of a contact's global opt-out and every topic choice. Kept three years; a
 * contact's erasure nulls `contact_id` and keeps the row under `email_hash` (an HMAC of the
 * lower-cased address under the master key, so a leaked table does not list addresses).
 */
export const createConsentRecords: Migration = {
  name: '20261126-0054-create-consent-records',
  ...createTable('consent_records', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    uuid(table, 'contact_id').nullable();
    table.string('email_hash', 64).notNullable();
    // 'unsubscribed' (global opt-out) or 'topic'.
    table.string('kind', 20).notNullable();
    uuid(table, 'topic_id').nullable();
    // unsubscribed: 'unsubscribed' | 'subscribed'; topic: 'opt_in' | 'opt_out'.
    table.string('value', 20).notNullable();
    table.string('source', 20).notNullable();
    table.string('ip', 64).nullable();
    table.string('user_agent', 500).nullable();
    timestamp(table, 'created_at').notNullable();
    table.index(['team_id', 'contact_id', 'id']);
    table.index(['team_id', 'email_hash']);
    table.index(['created_at']);
  }),
};
