import type { Migration } from './migration.js';

/**
 * How many times the run's current step threw an unexpected error (the database went away, a
 * bug): the engine retries it later, and after automations.maxStepAttempts the run fails with
 * that error instead of being retried forever. Back to 0 at every committed transition.
 */
export const addAutomationRunAttempts: Migration = {
  name: '20261126-0071-add-automation-run-attempts',
  async up(knex) {
    if (await knex.schema.hasColumn('automation_runs', 'attempts')) return;
    await knex.schema.alterTable('automation_runs', (table) => {
      table.integer('attempts').notNullable().defaultTo(0);
    });
  },
  async down(knex) {
    if (!(await knex.schema.hasColumn('automation_runs', 'attempts'))) return;
    await knex.schema.alterTable('automation_runs', (table) => table.dropColumn('attempts'));
  },
};
