import type { Migration } from './migration.js';

/**
 * job_leases.last_tick: the cron tick a job last ran for. With schedulers on several nodes, the
 * lease alone let a quick job run twice for one tick (one node took it, ran and released it
 * before the other node's timer fired); a tick is now taken once. The row outlives its release.
 */
export const addJobLeaseLastTick: Migration = {
  name: '20261129-0306-add-job-lease-last-tick',
  async up(knex) {
    if (await knex.schema.hasColumn('job_leases', 'last_tick')) return;
    await knex.schema.alterTable('job_leases', (table) => {
      table.datetime('last_tick', { precision: 3 }).nullable();
    });
  },
  async down(knex) {
    await knex.schema.alterTable('job_leases', (table) => table.dropColumn('last_tick'));
  },
};
