import type { Migration } from './migration.js';

const INDEX = 'team_members_user_id';

/**
 * A membership is a team_members row linked to a user. Nullable: rows from before accounts
 * (an owner e-mail given to `team create`) stay plain member records until a user claims them.
 */
export const addTeamMembersUserId: Migration = {
  name: '20261126-0078-add-team-members-user-id',
  async up(knex) {
    if (await knex.schema.hasColumn('team_members', 'user_id')) return;
    await knex.schema.alterTable('team_members', (table) => {
      table.string('user_id', 36).nullable();
      table.index(['user_id'], INDEX);
    });
  },
  async down(knex) {
    if (!(await knex.schema.hasColumn('team_members', 'user_id'))) return;
    await knex.schema.alterTable('team_members', (table) => {
      table.dropIndex(['user_id'], INDEX);
      table.dropColumn('user_id');
    });
  },
};
