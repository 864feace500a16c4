import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Broadcasts (campaigns): content, audience and state. A deleted draft keeps its row (ids in
 * metrics stay resolvable) but is no longer listed. `cursor` is the last contact id the fan-out
 * committed a page for: a restarted scheduler continues after it.
 */
export const createBroadcasts: Migration = {
  name: '20261126-0056-create-broadcasts',
  ...createTable('broadcasts', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    table.string('name', 200).nullable();
    uuid(table, 'segment_id').nullable();
    uuid(table, 'topic_id').nullable();
    table.string('from_header', 600).nullable();
    table.text('subject').nullable();
    table.text('reply_to').nullable();
    table.string('preview_text', 500).nullable();
    table.text('html', 'mediumtext').nullable();
    table.text('text', 'mediumtext').nullable();
    table.string('status', 12).notNullable();
    timestamp(table, 'scheduled_at').nullable();
    timestamp(table, 'sent_at').nullable();
    uuid(table, 'cursor').nullable();
    table.string('failure_reason', 500).nullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
    timestamp(table, 'deleted_at').nullable();
    table.index(['team_id', 'id']);
    table.index(['status', 'scheduled_at']);
  }),
};
