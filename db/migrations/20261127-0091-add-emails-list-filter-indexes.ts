import type { Knex } from 'knex';
import type { Migration } from './migration.js';

/**
 * The filtered pages of `GET /emails` (newest first by id, keyset cursors): each filter gets an
 * index that starts with the team and the filtered column and ends with id, so the first page
 * and any page after a cursor is one index range read backwards, LIMIT rows long, with no sort
 * and no scan of the team's other emails, however many the team has.
 *
 * - (team_id, last_event, id): `?last_event=bounced` (with or without created_after/before,
 *   which add an id range: ids are time-ordered, see email-list-filter.ts).
 * - (team_id, domain_id, id): `?domain_id=...` (same).
 *
 * The unfiltered list and the date-only filters use the existing (team_id, id).
 */
const INDEXES: Array<{ name: string; columns: string[] }> = [
  { name: 'emails_team_last_event_id', columns: ['team_id', 'last_event', 'id'] },
  { name: 'emails_team_domain_id', columns: ['team_id', 'domain_id', 'id'] },
];

async function addIndex(knex: Knex, index: { name: string; columns: string[] }): Promise<void> {
  try {
    await knex.schema.alterTable('emails', (table) => table.index(index.columns, index.name));
  } catch (err) {
    // Replayed after an interruption: the index is already there.
    if (!/exists|duplicate/i.test(String((err as Error).message))) throw err;
  }
}

export const addEmailsListFilterIndexes: Migration = {
  name: '20261127-0091-add-emails-list-filter-indexes',
  async up(knex) {
    for (const index of INDEXES) await addIndex(knex, index);
  },
  async down(knex) {
    for (const index of INDEXES)
      await knex.schema.alterTable('emails', (table) => table.dropIndex(index.columns, index.name));
  },
};
