import { timestamp, type Migration } from './migration.js';

/**
 * What traffic shaping did in reaction to receivers (slow, pause, a team's marketing suspended
 * at a provider), each with when it ends: the state every mta node reads, and the operator's
 * event list. Rows outlive their end for the list; a retention job removes them.
 */
export const createDeliverabilityActions: Migration = {
  name: '20261128-0200-create-deliverability-actions',
  async up(knex) {
    if (await knex.schema.hasTable('deliverability_actions')) return;
    await knex.schema.createTable('deliverability_actions', (table) => {
      table.string('id', 40).notNullable().primary();
      table.string('kind', 32).notNullable();
      table.string('provider', 300).notNullable();
      table.string('egress_ip', 64).nullable();
      table.string('team_id', 40).nullable();
      table.double('factor').nullable();
      table.string('rule_id', 100).nullable();
      table.string('reason', 1000).notNullable();
      timestamp(table, 'started_at').notNullable();
      timestamp(table, 'ends_at').notNullable();
      table.index(['ends_at'], 'deliverability_actions_ends_at');
      table.index(['started_at'], 'deliverability_actions_started_at');
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('deliverability_actions');
  },
};
