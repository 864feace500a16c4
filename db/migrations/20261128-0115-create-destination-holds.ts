import { timestamp, type Migration } from './migration.js';

/**
 * Standing holds on a recipient domain, placed by an operator (the console or `mailroom queue
 * hold-domain`): while one stands, mail to that domain waits as `held`, including mail accepted
 * after the hold, until the operator releases it. Shared by every mta node.
 */
export const createDestinationHolds: Migration = {
  name: '20261128-0115-create-destination-holds',
  async up(knex) {
    if (await knex.schema.hasTable('destination_holds')) return;
    await knex.schema.createTable('destination_holds', (table) => {
      table.string('domain', 255).notNullable().primary();
      table.string('reason', 500).nullable();
      table.string('held_by', 320).nullable();
      timestamp(table, 'created_at').notNullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('destination_holds');
  },
};
