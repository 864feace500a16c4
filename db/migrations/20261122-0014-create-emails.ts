import { createTable, timestamp, uuid, type Migration } from './migration.js';

/** Accepted emails: metadata here; the rendered MIME and the bodies live in the spool. */
export const createEmails: Migration = {
  name: '20261122-0014-create-emails',
  ...createTable('emails', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable();
    uuid(table, 'domain_id').notNullable();
    uuid(table, 'api_key_id').nullable();
    table.string('from_header', 600).notNullable();
    table.string('from_address', 320).notNullable();
    table.text('to_addresses').notNullable();
    table.text('cc_addresses').nullable();
    table.text('bcc_addresses').nullable();
    table.text('reply_to').nullable();
    // Recipients skipped because they are suppressed (recorded as email.suppressed).
    table.text('suppressed_recipients').nullable();
    table.text('subject').notNullable();
    table.text('tags').nullable();
    uuid(table, 'template_id').nullable();
    uuid(table, 'template_version_id').nullable();
    uuid(table, 'topic_id').nullable();
    table.string('message_id', 300).notNullable();
    table.string('last_event', 24).notNullable();
    timestamp(table, 'scheduled_at').nullable();
    table.integer('size_bytes').notNullable();
    // Where the spool record (bodies + MIME) is: segment file, byte offset, length.
    table.string('spool_segment', 80).notNullable();
    table.bigInteger('spool_offset').notNullable();
    table.integer('spool_length').notNullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
    table.index(['team_id', 'id']);
    table.index(['last_event', 'scheduled_at']);
    table.index(['team_id', 'created_at']);
  }),
};
