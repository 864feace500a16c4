import type { Migration } from './migration.js';

/**
 * `managed`: the appliance published the domain's records itself by DNS UPDATE (RFC 2136), so
 * DKIM rotation and deletion change the zone too. Existing domains were published by hand.
 */
export const addDomainsManaged: Migration = {
  name: '20261126-0086-add-domains-managed',
  async up(knex) {
    if (await knex.schema.hasColumn('domains', 'managed')) return;
    await knex.schema.alterTable('domains', (table) => {
      table.boolean('managed').notNullable().defaultTo(false);
    });
  },
  async down(knex) {
    if (!(await knex.schema.hasColumn('domains', 'managed'))) return;
    await knex.schema.alterTable('domains', (table) => {
      table.dropColumn('managed');
    });
  },
};
