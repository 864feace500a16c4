import { timestamp, type Migration } from './migration.js';

/**
 * Egress addresses resting from one destination after blocklist-style rejections there; the
 * rest of the pool keeps sending to it. Shared by every mta node.
 */
export const createEgressBlocks: Migration = {
  name: '20261123-0019-create-egress-blocks',
  async up(knex) {
    if (await knex.schema.hasTable('egress_blocks')) return;
    await knex.schema.createTable('egress_blocks', (table) => {
      table.string('egress_ip', 64).notNullable();
      table.string('destination', 255).notNullable();
      table.integer('strikes').notNullable().defaultTo(0);
      timestamp(table, 'blocked_until').nullable();
      table.text('last_reply').nullable();
      timestamp(table, 'updated_at').notNullable();
      table.primary(['egress_ip', 'destination']);
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('egress_blocks');
  },
};
