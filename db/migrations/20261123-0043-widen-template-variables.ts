import { dialectOfKnex } from '../dialect.js';
import type { Migration } from './migration.js';

/**
 * A version declares up to 200 variables, each with a fallback of up to 2000 characters (spec:
 * Limits): as JSON that can pass 1 MB, and MySQL's TEXT holds 64 KB, so such a template was
 * refused with a 500. MEDIUMTEXT holds 16 MB. SQLite's TEXT has no such limit.
 */
export const widenTemplateVariables: Migration = {
  name: '20261123-0043-widen-template-variables',
  async up(knex) {
    if (dialectOfKnex(knex) !== 'mysql') return;
    await knex.raw('ALTER TABLE template_versions MODIFY variables MEDIUMTEXT NOT NULL');
  },
  async down(knex) {
    if (dialectOfKnex(knex) !== 'mysql') return;
    await knex.raw('ALTER TABLE template_versions MODIFY variables TEXT NOT NULL');
  },
};
