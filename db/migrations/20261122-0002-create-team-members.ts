import { createTable, timestamp, uuid, type Migration } from './migration.js';

export const createTeamMembers: Migration = {
  name: '20261122-0002-create-team-members',
  ...createTable('team_members', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    table.string('email', 320).notNullable();
    table.string('name', 200).nullable();
    table.string('role', 20).notNullable();
    table.boolean('mfa_enabled').notNullable().defaultTo(false);
    timestamp(table, 'created_at').notNullable();
    table.unique(['team_id', 'email']);
  }),
};
