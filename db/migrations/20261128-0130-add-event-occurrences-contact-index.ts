import type { Migration } from './migration.js';

const NAME = 'custom_event_occurrences_team_contact_id';

/**
 * (team_id, contact_id, id) on sent events: a contact's events newest first
 * (`GET /contacts/{contact}/events`, the dashboard's contact page) are one index range read
 * backwards, LIMIT rows long, instead of a walk through all of the team's events. The
 * automations engine's claims use (processed_at, id) and never touch these columns after insert.
 */
export const addEventOccurrencesContactIndex: Migration = {
  name: '20261128-0130-add-event-occurrences-contact-index',
  async up(knex) {
    try {
      await knex.schema.alterTable('custom_event_occurrences', (table) =>
        table.index(['team_id', 'contact_id', 'id'], NAME),
      );
    } catch (err) {
      // Replayed after an interruption: the index is already there.
      if (!/exists|duplicate/i.test(String((err as Error).message))) throw err;
    }
  },
  async down(knex) {
    // (team_id, id) stays, so the team_id foreign key keeps an index of its own.
    await knex.schema.alterTable('custom_event_occurrences', (table) =>
      table.dropIndex(['team_id', 'contact_id', 'id'], NAME),
    );
  },
};
