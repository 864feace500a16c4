import type { Migration } from './migration.js';

/**
 * user_sessions.via_sso: whether the session was opened through a team's identity provider.
 * Enforcing single sign-on ends the other sessions of the addresses it covers (a password
 * session opened before enforcement would otherwise last its 30 days); rows from before this
 * column count as password sessions.
 */
export const addUserSessionsViaSso: Migration = {
  name: '20261129-0330-add-user-sessions-via-sso',
  async up(knex) {
    if (await knex.schema.hasColumn('user_sessions', 'via_sso')) return;
    await knex.schema.alterTable('user_sessions', (table) => {
      table.boolean('via_sso').notNullable().defaultTo(false);
    });
  },
  async down(knex) {
    await knex.schema.alterTable('user_sessions', (table) => table.dropColumn('via_sso'));
  },
};
