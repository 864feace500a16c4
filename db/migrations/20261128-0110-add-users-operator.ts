import type { Migration } from './migration.js';

/**
 * `operator`: the user runs this appliance (`mailroom user create --operator`) and reaches the
 * admin API (/admin/...) with a session whose MFA is on. Operators belong to no team; every
 * existing user is a team user.
 */
export const addUsersOperator: Migration = {
  name: '20261128-0110-add-users-operator',
  async up(knex) {
    if (await knex.schema.hasColumn('users', 'operator')) return;
    await knex.schema.alterTable('users', (table) => {
      table.boolean('operator').notNullable().defaultTo(false);
    });
  },
  async down(knex) {
    if (!(await knex.schema.hasColumn('users', 'operator'))) return;
    await knex.schema.alterTable('users', (table) => {
      table.dropColumn('operator');
    });
  },
};
