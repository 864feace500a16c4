import type { Migration } from './migration.js';

/** The process lease holding an in-flight Idempotency-Key claim (null on claims from before it). */
export const addIdempotencyOwner: Migration = {
  name: '20261125-0045-add-idempotency-owner',
  async up(knex) {
    if (await knex.schema.hasColumn('idempotency_keys', 'owner')) return;
    await knex.schema.alterTable('idempotency_keys', (table) => table.string('owner', 64).nullable());
  },
  async down(knex) {
    if (!(await knex.schema.hasColumn('idempotency_keys', 'owner'))) return;
    await knex.schema.alterTable('idempotency_keys', (table) => table.dropColumn('owner'));
  },
};
