import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Segments whose entries are being watched, and since when. The first look at a segment only
 * records who is in it (a trigger enabled today does not fire for everyone who was already a
 * member); a segment no trigger names any more loses its watch and its entries.
 */
export const createAutomationSegmentWatches: Migration = {
  name: '20261126-0073-create-automation-segment-watches',
  ...createTable('automation_segment_watches', (table) => {
    uuid(table, 'segment_id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    timestamp(table, 'started_at').notNullable();
    timestamp(table, 'checked_at').notNullable();
  }),
};
