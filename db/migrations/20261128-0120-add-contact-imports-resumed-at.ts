import { timestamp, type Migration } from './migration.js';

/**
 * `resumed_at`: the last time a worker took over an import another run had started (after a
 * restart, a crash or a shutdown), so the API and the dashboard can say "resumed" instead of
 * leaving a paused progress bar unexplained. Null for an import that ran in one go.
 */
export const addContactImportsResumedAt: Migration = {
  name: '20261128-0120-add-contact-imports-resumed-at',
  async up(knex) {
    if (await knex.schema.hasColumn('contact_imports', 'resumed_at')) return;
    await knex.schema.alterTable('contact_imports', (table) => {
      timestamp(table, 'resumed_at').nullable();
    });
  },
  async down(knex) {
    if (!(await knex.schema.hasColumn('contact_imports', 'resumed_at'))) return;
    await knex.schema.alterTable('contact_imports', (table) => {
      table.dropColumn('resumed_at');
    });
  },
};
