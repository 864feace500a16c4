import { createTable, timestamp, uuid, type Migration } from './migration.js';

/** Contacts added to a segment by hand; filter matches are never stored. */
export const createSegmentMembers: Migration = {
  name: '20261126-0053-create-segment-members',
  ...createTable('segment_members', (table) => {
    uuid(table, 'segment_id').notNullable().references('id').inTable('segments').onDelete('CASCADE');
    uuid(table, 'contact_id').notNullable().references('id').inTable('contacts').onDelete('CASCADE');
    uuid(table, 'team_id').notNullable();
    timestamp(table, 'created_at').notNullable();
    table.primary(['segment_id', 'contact_id']);
    table.index(['contact_id']);
  }),
};
