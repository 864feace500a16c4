import type { Migration } from './migration.js';

/** The custom headers a send carried: every later email.* event repeats them (spec: Events). */
export const addEmailHeaders: Migration = {
  name: '20261123-0016-add-email-headers',
  async up(knex) {
    if (await knex.schema.hasColumn('emails', 'headers')) return;
    await knex.schema.alterTable('emails', (table) => table.text('headers').nullable());
  },
  async down(knex) {
    if (!(await knex.schema.hasColumn('emails', 'headers'))) return;
    await knex.schema.alterTable('emails', (table) => table.dropColumn('headers'));
  },
};
