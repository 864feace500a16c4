import { createTable, uuid, type Migration } from './migration.js';

/** Each link clicked in a broadcast, named by a hash of its URL (the clicked-links cursor). */
export const createBroadcastLinks: Migration = {
  name: '20261126-0061-create-broadcast-links',
  ...createTable('broadcast_links', (table) => {
    uuid(table, 'broadcast_id').notNullable().references('id').inTable('broadcasts').onDelete('CASCADE');
    uuid(table, 'link_id').notNullable();
    table.text('url').notNullable();
    table.primary(['broadcast_id', 'link_id']);
  }),
};
