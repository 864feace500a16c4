import type { Knex } from 'knex';
import { readJson, readTimestamp, tableUsingIndex } from '../../../db/dialect.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';

/** One event recorded for a contact: a custom event sent, or a platform event (`svc:...`). */
export type ContactEvent = { id: string; event: string; payload: Record<string, unknown>; createdAt: Date };

type Row = { id: string; event_name: string; payload: unknown; created_at: unknown };

/** The index of migration 20261128-0130: the page is one range of it, whatever the team's size. */
const INDEX = 'custom_event_occurrences_team_contact_id';

/**
 * The events of one contact, newest first, read from the occurrences the automations engine
 * consumes (POST /events/send, and the platform events recorded for triggers). Read-only: the
 * engine's bookkeeping (leases, processed_at) stays inside.
 */
export class ContactEventReader {
  constructor(private readonly knex: Knex) {}

  async list(
    teamId: string,
    contactId: string,
    page: PageQuery,
  ): Promise<{ events: ContactEvent[]; hasMore: boolean }> {
    // Forced on MariaDB: with `id < cursor` it may otherwise prefer ref access on (team_id, id).
    const query = tableUsingIndex(this.knex, 'custom_event_occurrences', INDEX)
      .select('id', 'event_name', 'payload', 'created_at')
      .where({ team_id: teamId, contact_id: contactId });
    const { rows, hasMore } = await paginateNewestFirst<Row>(query, page);
    return {
      events: rows.map((row) => ({
        id: row.id,
        event: row.event_name,
        payload: readJson<Record<string, unknown>>(row.payload, {}),
        createdAt: readTimestamp(row.created_at),
      })),
      hasMore,
    };
  }
}
