import { createTable, uuid, type Migration } from './migration.js';

/** Clicks per recipient per link of a broadcast: totals, unique clicks and each recipient's links. */
export const createBroadcastLinkClicks: Migration = {
  name: '20261126-0062-create-broadcast-link-clicks',
  ...createTable('broadcast_link_clicks', (table) => {
    uuid(table, 'broadcast_id').notNullable().references('id').inTable('broadcasts').onDelete('CASCADE');
    uuid(table, 'link_id').notNullable();
    uuid(table, 'contact_id').notNullable();
    table.integer('clicks').notNullable();
    table.primary(['broadcast_id', 'link_id', 'contact_id']);
    table.index(['broadcast_id', 'contact_id']);
  }),
};
