import type { Knex } from 'knex';
import { claimRows } from '../../db/claim.js';
import { readJson, readNullableTimestamp, readTimestamp, rowsPerInsert } from '../../db/dialect.js';
import type { EventOccurrence } from './custom-event.types.js';

const TABLE = 'custom_event_occurrences';

/** An occurrence as it is stored, with the engine's bookkeeping. */
export type StoredOccurrence = EventOccurrence & {
  leaseOwner: string | null;
  leaseUntil: Date | null;
  processedAt: Date | null;
};

type Row = {
  id: string;
  team_id: string;
  definition_id: string | null;
  event_name: string;
  contact_id: string;
  payload: unknown;
  created_at: unknown;
  lease_owner: string | null;
  lease_until: unknown;
  processed_at: unknown;
};

const toOccurrence = (row: Row): StoredOccurrence => ({
  id: row.id,
  teamId: row.team_id,
  definitionId: row.definition_id,
  eventName: row.event_name,
  contactId: row.contact_id,
  payload: readJson<Record<string, unknown>>(row.payload, {}),
  createdAt: readTimestamp(row.created_at),
  leaseOwner: row.lease_owner,
  leaseUntil: readNullableTimestamp(row.lease_until),
  processedAt: readNullableTimestamp(row.processed_at),
});

/** An occurrence to insert, its payload already serialized (the size was checked on that text). */
export type OccurrenceWrite = Omit<EventOccurrence, 'payload'> & { payloadJson: string };

/**
 * The queue of sent events (see the migration 20261126-0064 for the contract with the
 * automations engine): inserted by POST /events/send, claimed and marked processed by the engine.
 */
export class EventOccurrenceRepository {
  constructor(private readonly knex: Knex) {}

  /** Many sends of one group commit are one multi-row INSERT. */
  async insertMany(occurrences: OccurrenceWrite[]): Promise<void> {
    const rows = occurrences.map((o) => ({
      id: o.id,
      team_id: o.teamId,
      definition_id: o.definitionId,
      event_name: o.eventName,
      contact_id: o.contactId,
      payload: o.payloadJson,
      created_at: o.createdAt,
    }));
    const size = rowsPerInsert(this.knex, 7);
    for (let i = 0; i < rows.length; i += size) await this.knex(TABLE).insert(rows.slice(i, i + size));
  }

  async find(id: string): Promise<StoredOccurrence | undefined> {
    const row = (await this.knex(TABLE).where({ id }).first()) as Row | undefined;
    return row ? toOccurrence(row) : undefined;
  }

  /** A team's occurrences, oldest first (tests and diagnostics). */
  async ofTeam(teamId: string, limit = 1000): Promise<StoredOccurrence[]> {
    const rows = (await this.knex(TABLE).where({ team_id: teamId }).orderBy('id', 'asc').limit(limit)) as Row[];
    return rows.map(toOccurrence);
  }

  /**
   * Claims up to `limit` unprocessed occurrences, oldest first, whose lease is free or ran out:
   * concurrent workers (here or on other nodes) never claim the same row. `token` must be unique
   * to this claim (a worker's id and a counter): the claimed rows are read back by it.
   */
  async claim(token: string, now: Date, leaseUntil: Date, limit: number): Promise<StoredOccurrence[]> {
    const ids = await claimRows(this.knex, {
      table: TABLE,
      where: (query) =>
        query.whereNull('processed_at').where((free) => free.whereNull('lease_until').orWhere('lease_until', '<', now)),
      orderBy: 'id',
      limit,
      tokenColumn: 'lease_owner',
      token,
      set: { lease_until: leaseUntil },
    });
    if (ids.length === 0) return [];
    const rows = (await this.knex(TABLE).whereIn('id', ids).orderBy('id', 'asc')) as Row[];
    return rows.map(toOccurrence);
  }

  /** Done with these: never claimed again. */
  async markProcessed(ids: string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.knex(TABLE).whereIn('id', ids).update({ processed_at: at, lease_owner: null, lease_until: null });
  }
}
