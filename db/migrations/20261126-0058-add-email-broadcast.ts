import type { Migration } from './migration.js';

/** The broadcast an email was created for (null for transactional mail): results and metrics by broadcast. */
export const addEmailBroadcast: Migration = {
  name: '20261126-0058-add-email-broadcast',
  async up(knex) {
    if (await knex.schema.hasColumn('emails', 'broadcast_id')) return;
    await knex.schema.alterTable('emails', (table) => {
      table.string('broadcast_id', 36).nullable();
      table.index(['broadcast_id', 'id']);
    });
  },
  async down(knex) {
    if (!(await knex.schema.hasColumn('emails', 'broadcast_id'))) return;
    await knex.schema.alterTable('emails', (table) => table.dropColumn('broadcast_id'));
  },
};
