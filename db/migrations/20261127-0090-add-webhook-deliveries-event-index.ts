import type { Migration } from './migration.js';

const INDEX = 'webhook_deliveries_event_id';

/**
 * `GET /emails/{id}/webhook-deliveries` finds an email's events by email_id, then their
 * deliveries by event id: the unique (endpoint_id, event_id) cannot serve a look-up by event
 * alone, so without this index each of those reads would scan the outbox.
 */
export const addWebhookDeliveriesEventIndex: Migration = {
  name: '20261127-0090-add-webhook-deliveries-event-index',
  async up(knex) {
    try {
      await knex.schema.alterTable('webhook_deliveries', (table) => table.index(['event_id'], INDEX));
    } catch (err) {
      // Replayed after an interruption: the index is already there.
      if (!/exists|duplicate/i.test(String((err as Error).message))) throw err;
    }
  },
  async down(knex) {
    await knex.schema.alterTable('webhook_deliveries', (table) => table.dropIndex(['event_id'], INDEX));
  },
};
