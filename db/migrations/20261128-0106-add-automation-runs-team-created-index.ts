import { dialectOfKnex } from '../dialect.js';
import type { Migration } from './migration.js';

const NAME = 'automation_runs_team_created';

/**
 * (team_id, created_at) on automation runs: the plan's monthly run limit counts a team's runs
 * since the first of the month at every enrolment, and GET /usage reports the same count; with
 * this index that is one range read of the month's runs instead of a scan of all the team's.
 */
export const addAutomationRunsTeamCreatedIndex: Migration = {
  name: '20261128-0106-add-automation-runs-team-created-index',
  async up(knex) {
    try {
      await knex.schema.alterTable('automation_runs', (table) => table.index(['team_id', 'created_at'], NAME));
    } catch (err) {
      // Replayed after an interruption: the index is already there.
      if (!/exists|duplicate/i.test(String((err as Error).message))) throw err;
    }
  },
  async down(knex) {
    // MySQL dropped the team_id foreign key's own index when this one could serve the key, and
    // refuses to drop the only index a foreign key has (ER_DROP_INDEX_FK): give it one back first.
    if (dialectOfKnex(knex) === 'mysql') {
      try {
        await knex.schema.alterTable('automation_runs', (table) =>
          table.index(['team_id'], 'automation_runs_team_id_fk'),
        );
      } catch (err) {
        if (!/exists|duplicate/i.test(String((err as Error).message))) throw err;
      }
    }
    await knex.schema.alterTable('automation_runs', (table) => table.dropIndex(['team_id', 'created_at'], NAME));
  },
};
