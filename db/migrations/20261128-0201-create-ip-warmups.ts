import { timestamp, type Migration } from './migration.js';

/**
 * Egress addresses warming up: the UTC day their schedule started (day 1). An address with no
 * row is warm. Marked and unmarked by the operator (`mailroom ip warmup`, the admin API).
 */
export const createIpWarmups: Migration = {
  name: '20261128-0201-create-ip-warmups',
  async up(knex) {
    if (await knex.schema.hasTable('ip_warmups')) return;
    await knex.schema.createTable('ip_warmups', (table) => {
      table.string('address', 64).notNullable().primary();
      table.string('started_on', 10).notNullable();
      timestamp(table, 'created_at').notNullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('ip_warmups');
  },
};
