import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * Every event sent (POST /events/send), one row per call: the queue the automations engine
 * consumes. A row is committed before the 202 leaves, so an accepted event is never lost.
 *
 * - `id` (UUIDv7) orders the queue and keys what the engine derives from a row: one run per
 *   automation per occurrence (a unique key on automation and occurrence keeps a redelivered
 *   row at one run).
 * - `definition_id` is the live definition the event was sent as; null is left for platform
 *   events (`svc:...`) the engine may record into the same queue. `event_name` is the name at
 *   send time, what automation triggers name (a deleted definition's name can be taken again by
 *   a new definition: `definition_id` tells the two apart).
 * - `contact_id` has no foreign key: a contact erased after the send stays named here and the
 *   engine drops the event for it.
 * - `payload` is the JSON object as accepted (at most 16 KB of JSON).
 * - `processed_at` is null until the engine has enrolled the contact in every matching
 *   automation; `lease_owner`/`lease_until` let an engine worker claim a batch (db/claim.ts) so
 *   that a worker that dies leaves its rows to another once the lease runs out.
 */
export const createCustomEventOccurrences: Migration = {
  name: '20261126-0064-create-custom-event-occurrences',
  ...createTable('custom_event_occurrences', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    uuid(table, 'definition_id').nullable();
    table.string('event_name', 100).notNullable();
    uuid(table, 'contact_id').notNullable();
    table.text('payload').notNullable();
    timestamp(table, 'created_at').notNullable();
    table.string('lease_owner', 120).nullable();
    timestamp(table, 'lease_until').nullable();
    timestamp(table, 'processed_at').nullable();
    // The engine's scan: unprocessed rows, oldest first.
    table.index(['processed_at', 'id']);
    table.index(['team_id', 'id']);
  }),
};
