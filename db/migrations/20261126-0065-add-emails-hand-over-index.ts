import type { Migration } from './migration.js';

const INDEX = 'emails_hand_over_index';

/**
 * The hand-over's reads: queued transactional emails oldest first, then queued broadcast emails
 * by broadcast and age, each one index range instead of sorting every queued row.
 */
export const addEmailsHandOverIndex: Migration = {
  name: '20261126-0065-add-emails-hand-over-index',
  async up(knex) {
    try {
      await knex.schema.alterTable('emails', (table) => {
        table.index(['last_event', 'broadcast_id', 'created_at'], INDEX);
      });
    } catch (err) {
      // Replayed after an interruption: the index is already there.
      if (!/exists|duplicate/i.test(String((err as Error).message))) throw err;
    }
  },
  async down(knex) {
    await knex.schema.alterTable('emails', (table) =>
      table.dropIndex(['last_event', 'broadcast_id', 'created_at'], INDEX),
    );
  },
};
