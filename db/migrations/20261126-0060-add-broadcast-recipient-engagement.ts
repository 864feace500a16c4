import type { Migration } from './migration.js';

const COLUMNS = ['sent_at', 'delivered_at', 'bounce_type', 'complained_at', 'suppressed_at', 'unsubscribed_at'];

/**
 * What happened to each broadcast recipient's email, kept on its recipient row as the email's
 * events are recorded (GET /broadcasts/{id}/recipients?type=...): the events table holds the
 * same facts but cannot be searched by broadcast.
 */
export const addBroadcastRecipientEngagement: Migration = {
  name: '20261126-0060-add-broadcast-recipient-engagement',
  async up(knex) {
    if (await knex.schema.hasColumn('broadcast_recipients', 'sent_at')) return;
    await knex.schema.alterTable('broadcast_recipients', (table) => {
      table.datetime('sent_at', { precision: 3 }).nullable();
      table.datetime('delivered_at', { precision: 3 }).nullable();
      // permanent | transient | undetermined
      table.string('bounce_type', 12).nullable();
      table.datetime('complained_at', { precision: 3 }).nullable();
      table.datetime('suppressed_at', { precision: 3 }).nullable();
      // Unsubscribed through this broadcast's link (one-click, the page, or the mailto).
      table.datetime('unsubscribed_at', { precision: 3 }).nullable();
      table.integer('open_count').notNullable().defaultTo(0);
      table.integer('click_count').notNullable().defaultTo(0);
    });
  },
  async down(knex) {
    if (!(await knex.schema.hasColumn('broadcast_recipients', 'sent_at'))) return;
    await knex.schema.alterTable('broadcast_recipients', (table) => {
      table.dropColumns(...COLUMNS, 'open_count', 'click_count');
    });
  },
};
