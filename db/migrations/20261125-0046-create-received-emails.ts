import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Mail the inbound MX accepted for a team's receiving domain: one row per team the message was
 * addressed to. Header fields and attachment metadata are here; the raw message (bodies,
 * attachment content) stays in the blob store under `raw_blob`, shared by the rows of one message.
 */
export const createReceivedEmails: Migration = {
  name: '20261125-0046-create-received-emails',
  ...createTable('received_emails', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable();
    table.string('from_header', 998).notNullable();
    table.text('to_addresses').notNullable();
    table.text('cc_addresses').notNullable();
    table.text('bcc_addresses').notNullable();
    table.text('reply_to').notNullable();
    table.text('received_for').notNullable();
    table.text('subject').notNullable();
    table.string('message_id', 998).notNullable();
    table.text('attachments').notNullable();
    table.text('authentication').nullable();
    table.string('envelope_from', 320).notNullable();
    table.string('remote_ip', 64).nullable();
    table.string('dropped_reason', 64).nullable();
    table.string('raw_blob', 80).nullable();
    table.integer('size_bytes').notNullable();
    timestamp(table, 'created_at').notNullable();
    table.index(['team_id', 'id']);
    table.index(['team_id', 'created_at']);
    table.index(['created_at']);
  }),
};
