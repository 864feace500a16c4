import { createTable, timestamp, uuid, type Migration } from './migration.js';

export const createDkimKeys: Migration = {
  name: '20261122-0011-create-dkim-keys',
  ...createTable('dkim_keys', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'domain_id').notNullable().references('id').inTable('domains').onDelete('CASCADE');
    table.string('selector', 63).notNullable();
    table.string('algorithm', 16).notNullable();
    // The public half as published in DNS (p=...), and the private half sealed with the master key.
    table.text('public_key').notNullable();
    table.text('private_key_sealed').notNullable();
    // pending (published, not signing yet) -> active (signing) -> retired.
    table.string('state', 16).notNullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'activated_at').nullable();
    timestamp(table, 'retired_at').nullable();
    table.unique(['domain_id', 'selector']);
  }),
};
