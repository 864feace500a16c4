import { createTable, timestamp, uuid, type Migration } from './migration.js';

export const createTeams: Migration = {
  name: '20261122-0001-create-teams',
  ...createTable('teams', (table) => {
    uuid(table, 'id').primary();
    table.string('name', 80).notNullable();
    table.string('slug', 120).notNullable().unique();
    table.string('risk_state', 20).notNullable().defaultTo('normal');
    table.string('plan_code', 40).notNullable().defaultTo('free');
    table.integer('sending_tier').notNullable().defaultTo(0);
    table.string('sender_name', 200).nullable();
    table.text('postal_address').nullable();
    table.boolean('ai_assist_enabled').notNullable().defaultTo(false);
    table.text('brand_kit').nullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
  }),
};
