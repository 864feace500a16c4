import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * One row per segment member a broadcast considered: the email created for them, or why they
 * were excluded. The primary key (broadcast, contact) is the fan-out's claim: a page committed
 * twice (a scheduler killed after its commit) cannot create a second email for anyone.
 */
export const createBroadcastRecipients: Migration = {
  name: '20261126-0057-create-broadcast-recipients',
  ...createTable('broadcast_recipients', (table) => {
    uuid(table, 'broadcast_id').notNullable().references('id').inTable('broadcasts').onDelete('CASCADE');
    uuid(table, 'contact_id').notNullable();
    uuid(table, 'team_id').notNullable();
    table.string('email', 320).notNullable();
    uuid(table, 'email_id').nullable();
    // null: sent; else unsubscribed, topic_opt_out, suppressed.
    table.string('excluded', 20).nullable();
    timestamp(table, 'created_at').notNullable();
    table.primary(['broadcast_id', 'contact_id']);
    table.index(['email_id']);
  }),
};
