import type { Migration } from './migration.js';

const INDEX = 'automation_run_steps_email_id';

/**
 * Which run step sent an email: enrolment asks it of every svc:email.* occurrence, since an
 * automation's own emails never start automations (a trigger on email.sent that sends would
 * otherwise feed itself).
 */
export const addAutomationRunStepsEmailIndex: Migration = {
  name: '20261126-0074-add-automation-run-steps-email-index',
  async up(knex) {
    try {
      await knex.schema.alterTable('automation_run_steps', (table) => table.index(['email_id'], INDEX));
    } catch (err) {
      // Replayed after an interruption: the index is already there.
      if (!/exists|duplicate/i.test(String((err as Error).message))) throw err;
    }
  },
  async down(knex) {
    await knex.schema.alterTable('automation_run_steps', (table) => table.dropIndex(['email_id'], INDEX));
  },
};
