import { createTable, timestamp, uuid, type Migration } from './migration.js';

/** Attachments of accepted emails: metadata here, bytes in the spool. */
export const createEmailAttachments: Migration = {
  name: '20261122-0015-create-email-attachments',
  ...createTable('email_attachments', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'email_id').notNullable();
    uuid(table, 'team_id').notNullable();
    table.integer('position').notNullable();
    table.string('filename', 255).nullable();
    table.string('content_type', 255).notNullable();
    table.string('content_disposition', 16).notNullable();
    table.string('content_id', 255).nullable();
    table.integer('size').notNullable();
    table.string('spool_segment', 80).notNullable();
    table.bigInteger('spool_offset').notNullable();
    table.integer('spool_length').notNullable();
    timestamp(table, 'created_at').notNullable();
    table.index(['email_id', 'position']);
  }),
};
