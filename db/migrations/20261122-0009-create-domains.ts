import { createTable, timestamp, uuid, type Migration } from './migration.js';

export const createDomains: Migration = {
  name: '20261122-0009-create-domains',
  ...createTable('domains', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    table.string('name', 253).notNullable();
    // The zone apex the records are relative to (found by SOA look-up at creation).
    table.string('zone', 253).notNullable();
    table.string('region', 20).notNullable();
    table.string('status', 24).notNullable();
    table.boolean('open_tracking').notNullable().defaultTo(false);
    table.boolean('click_tracking').notNullable().defaultTo(false);
    table.string('tracking_subdomain', 63).notNullable();
    table.string('custom_return_path', 63).notNullable();
    table.string('receiving_host', 63).notNullable();
    table.string('tls', 16).notNullable();
    table.boolean('sending_enabled').notNullable();
    table.boolean('receiving_enabled').notNullable();
    // Per-record statuses of the last check, keyed by record id (JSON).
    table.text('record_statuses').nullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
    timestamp(table, 'verified_at').nullable();
    // When the current verification round began (creation or the last verify request): after
    // 72 hours with nothing found the domain is failed and automatic checks stop.
    timestamp(table, 'verification_started_at').nullable();
    timestamp(table, 'last_checked_at').nullable();
    timestamp(table, 'next_check_at').nullable();
    table.integer('check_attempts').notNullable().defaultTo(0);
    table.index(['team_id', 'id']);
    table.index(['name', 'status']);
    table.index(['next_check_at']);
  }),
};
