import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * The members of each segment an enabled automation's svc:segment.entered trigger watches, as
 * last seen by the engine: a contact found in the segment and not here has entered it (one
 * event), a row whose contact left the segment is removed (entering again is a new event).
 * Segments are filters evaluated when asked, so entering is only known by comparing.
 */
export const createAutomationSegmentEntries: Migration = {
  name: '20261126-0072-create-automation-segment-entries',
  ...createTable('automation_segment_entries', (table) => {
    uuid(table, 'segment_id').notNullable();
    uuid(table, 'contact_id').notNullable();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    timestamp(table, 'entered_at').notNullable();
    table.primary(['segment_id', 'contact_id']);
  }),
};
