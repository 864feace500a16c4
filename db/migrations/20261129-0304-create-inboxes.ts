import type { Knex } from 'knex';
import { timestamp, uuid, type Migration } from './migration.js';

/**
 * Shared inboxes (issue 38): an address on a receiving domain whose mail is grouped in threads.
 * Received mail stays in received_emails and sent mail in emails: an inbox message row is a
 * reference to one of them with what a thread list shows (addresses, subject, read), so a list
 * never opens the spool. `live_address` is the address while the inbox exists (unique across
 * teams: the MX routes an address to one inbox), null once deleted.
 */
async function create(knex: Knex, name: string, build: (table: Knex.CreateTableBuilder) => void) {
  if (!(await knex.schema.hasTable(name))) await knex.schema.createTable(name, build);
}

export const createInboxes: Migration = {
  name: '20261129-0304-create-inboxes',
  async up(knex) {
    await create(knex, 'inboxes', (table) => {
      uuid(table, 'id').notNullable().primary();
      uuid(table, 'team_id').notNullable();
      uuid(table, 'domain_id').notNullable();
      table.string('email_address', 320).notNullable();
      table.string('live_address', 320).nullable().unique('inboxes_live_address_unique');
      table.string('name', 255).nullable();
      table.string('from_name', 255).nullable();
      table.boolean('forwarding').notNullable().defaultTo(false);
      table.text('agent_instructions').nullable();
      table.string('agent_tone', 32).nullable();
      table.text('agent_actions').nullable();
      timestamp(table, 'created_at').notNullable();
      timestamp(table, 'updated_at').notNullable();
      timestamp(table, 'deleted_at').nullable();
      table.index(['team_id', 'id'], 'inboxes_team_index');
    });
    await create(knex, 'inbox_threads', (table) => {
      uuid(table, 'id').notNullable().primary();
      uuid(table, 'inbox_id').notNullable();
      uuid(table, 'team_id').notNullable();
      table.string('subject', 1000).nullable();
      table.string('folder', 16).notNullable();
      table.boolean('read').notNullable().defaultTo(false);
      uuid(table, 'assignee_user_id').nullable();
      table.string('assignee_email', 320).nullable();
      table.integer('email_count').notNullable().defaultTo(0);
      table.boolean('has_attachment').notNullable().defaultTo(false);
      timestamp(table, 'last_message_at').notNullable();
      timestamp(table, 'created_at').notNullable();
      timestamp(table, 'updated_at').notNullable();
      timestamp(table, 'deleted_at').nullable();
      table.index(['inbox_id', 'last_message_at', 'id'], 'inbox_threads_activity_index');
    });
    await create(knex, 'inbox_messages', (table) => {
      // The received email's id (inbound) or the sent email's id (outbound).
      uuid(table, 'id').notNullable();
      uuid(table, 'inbox_id').notNullable();
      uuid(table, 'thread_id').notNullable();
      uuid(table, 'team_id').notNullable();
      table.string('direction', 8).notNullable();
      table.string('rfc_message_id', 500).nullable();
      // The ids it refers to (In-Reply-To, then References newest first): a reply's References are built from them.
      table.text('references_ids').notNullable();
      table.string('from_address', 1000).notNullable();
      table.text('to_addresses').notNullable();
      table.text('cc_addresses').notNullable();
      table.text('bcc_addresses').notNullable();
      table.text('reply_to_addresses').notNullable();
      table.string('subject', 1000).nullable();
      table.text('attachments').notNullable();
      table.boolean('read').notNullable().defaultTo(false);
      timestamp(table, 'received_at').notNullable();
      table.primary(['inbox_id', 'id']);
      table.index(['inbox_id', 'rfc_message_id'], 'inbox_messages_message_id_index');
      table.index(['thread_id', 'received_at'], 'inbox_messages_thread_index');
    });
    await create(knex, 'inbox_labels', (table) => {
      uuid(table, 'id').notNullable().primary();
      uuid(table, 'inbox_id').notNullable();
      uuid(table, 'team_id').notNullable();
      table.string('name', 100).notNullable();
      table.string('color', 7).notNullable();
      timestamp(table, 'created_at').notNullable();
      table.index(['inbox_id', 'id'], 'inbox_labels_inbox_index');
    });
    await create(knex, 'inbox_thread_labels', (table) => {
      uuid(table, 'thread_id').notNullable();
      uuid(table, 'label_id').notNullable();
      timestamp(table, 'created_at').notNullable();
      table.primary(['thread_id', 'label_id']);
      table.index(['label_id'], 'inbox_thread_labels_label_index');
    });
    await create(knex, 'inbox_drafts', (table) => {
      uuid(table, 'id').notNullable().primary();
      uuid(table, 'inbox_id').notNullable();
      uuid(table, 'team_id').notNullable();
      table.string('type', 16).notNullable();
      table.text('to_addresses').nullable();
      table.text('cc_addresses').notNullable();
      table.text('bcc_addresses').notNullable();
      table.string('subject', 1000).nullable();
      table.text('html', 'mediumtext').nullable();
      table.text('text', 'mediumtext').nullable();
      uuid(table, 'thread_id').nullable();
      uuid(table, 'reply_to_email_id').nullable();
      uuid(table, 'email_id').nullable();
      table.text('attachments').notNullable();
      table.string('created_by', 16).notNullable().defaultTo('api');
      timestamp(table, 'created_at').notNullable();
      timestamp(table, 'updated_at').notNullable();
      timestamp(table, 'deleted_at').nullable();
      table.index(['inbox_id', 'id'], 'inbox_drafts_inbox_index');
      table.index(['thread_id'], 'inbox_drafts_thread_index');
    });
    await create(knex, 'inbox_thread_actions', (table) => {
      uuid(table, 'id').notNullable().primary();
      uuid(table, 'thread_id').notNullable();
      uuid(table, 'inbox_id').notNullable();
      uuid(table, 'team_id').notNullable();
      table.string('action', 32).notNullable();
      table.string('source', 16).notNullable();
      table.text('reason').nullable();
      table.text('detail').nullable();
      timestamp(table, 'created_at').notNullable();
      table.index(['thread_id', 'id'], 'inbox_thread_actions_thread_index');
    });
  },
  async down(knex) {
    for (const name of [
      'inbox_thread_actions',
      'inbox_drafts',
      'inbox_thread_labels',
      'inbox_labels',
      'inbox_messages',
      'inbox_threads',
      'inboxes',
    ])
      await knex.schema.dropTableIfExists(name);
  },
};
