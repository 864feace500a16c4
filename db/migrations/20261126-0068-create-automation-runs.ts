import { createTable, timestamp, uuid, type Migration } from './migration.js';

/**
 * One run of an automation for one contact, started by one event occurrence and pinned to the
 * version active then. `next_step_key` is the step to execute when `wake_at` comes (null once
 * ended); `lease_owner`/`lease_until` let one worker advance it at a time (db/claim.ts). The
 * unique key on automation and occurrence keeps a redelivered occurrence at one run.
 */
export const createAutomationRuns: Migration = {
  name: '20261126-0068-create-automation-runs',
  ...createTable('automation_runs', (table) => {
    uuid(table, 'id').primary();
    uuid(table, 'team_id').notNullable().references('id').inTable('teams').onDelete('CASCADE');
    uuid(table, 'automation_id').notNullable().references('id').inTable('automations').onDelete('CASCADE');
    uuid(table, 'version_id').notNullable();
    uuid(table, 'contact_id').notNullable();
    uuid(table, 'occurrence_id').notNullable();
    table.string('status', 20).notNullable();
    table.string('next_step_key', 100).nullable();
    timestamp(table, 'wake_at').nullable();
    table.string('lease_owner', 120).nullable();
    timestamp(table, 'lease_until').nullable();
    table.text('error').nullable();
    timestamp(table, 'created_at').notNullable();
    timestamp(table, 'updated_at').notNullable();
    timestamp(table, 'ended_at').nullable();
    table.unique(['automation_id', 'occurrence_id']);
    // The engine's scan: running runs by due time.
    table.index(['status', 'wake_at']);
    table.index(['automation_id', 'id']);
  }),
};
