import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * One row per step a run executed (or is parked on): its status, times and error, and for a
 * send_email step the email created, written in the email's own transaction so a retried step
 * never sends twice.
 */
export const createAutomationRunSteps: Migration = {
  name: '20261126-0069-create-automation-run-steps',
  ...createTable('automation_run_steps', (table) => {
    uuid(table, 'run_id').notNullable().references('id').inTable('automation_runs').onDelete('CASCADE');
    table.string('step_key', 100).notNullable();
    table.string('status', 20).notNullable();
    timestamp(table, 'started_at').notNullable();
    timestamp(table, 'ended_at').nullable();
    table.text('error').nullable();
    uuid(table, 'email_id').nullable();
    table.primary(['run_id', 'step_key']);
  }),
};
