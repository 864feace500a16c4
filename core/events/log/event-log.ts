import type { Knex } from 'knex';
import { bulkInsertObjects } from '../../../db/bulk-insert.js';
import type { Clock } from '../../../lib/clock.js';
import { readJson, readTimestamp } from '../../../db/dialect.js';
import { newId } from '../../../lib/ids.js';
import { purgeByPlanRetention } from '../../platform/retention/plan-retention.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import { paginateOldestFirst } from '../../shared/pagination/oldest-first.js';
import type { EventType, LoggedEvent } from './event.types.js';

type EventRow = { id: string; team_id: string; type: string; data: string; created_at: unknown };

const toEvent = (row: EventRow): LoggedEvent => ({
  id: row.id,
  teamId: row.team_id,
  type: row.type as EventType,
  data: readJson(row.data, {}),
  createdAt: readTimestamp(row.created_at),
});

/**
 * The sent email an event is about, kept in its own indexed column so an email's timeline is one
 * index range (GET /emails/{id}/events). email.received names a received email: not one of these.
 */
export function emailIdOfEvent(type: string, data: Record<string, unknown>): string | null {
  if (!type.startsWith('email.') || type === 'email.received') return null;
  return typeof data.email_id === 'string' ? data.email_id : null;
}

/** At most this many events per page of an email's timeline (the default is the maximum). */
export const TIMELINE_PAGE_LIMIT = 100;

/** Work that must commit with every recorded event (the webhook outbox, broadcast results). */
export type EventFanOut = { enqueueMany(trx: Knex, events: LoggedEvent[]): Promise<void> };

/**
 * The one events table: every domain, suppression and email event is recorded here, in the
 * same transaction as the change it describes, so nothing is announced that did not happen and
 * nothing happens unannounced. Webhook deliveries are queued in that same transaction.
 */
export class EventLog {
  private readonly followers: EventFanOut[] = [];

  constructor(private readonly deps: { knex: Knex; clock: Clock; fanOut?: EventFanOut }) {
    if (deps.fanOut) this.followers.push(deps.fanOut);
  }

  /**
   * Adds work that commits with every event from now on. A feature that keeps its own view of
   * events (broadcast results) follows the log this way, so the sending code that records the
   * events needs not know it exists.
   */
  follow(follower: EventFanOut): void {
    this.followers.push(follower);
  }

  private async enqueue(trx: Knex, events: LoggedEvent[]): Promise<void> {
    for (const follower of this.followers) await follower.enqueueMany(trx, events);
  }

  async record(
    teamId: string,
    type: EventType,
    data: Record<string, unknown>,
    trx: Knex = this.deps.knex,
  ): Promise<LoggedEvent> {
    const event: LoggedEvent = { id: newId(), teamId, type, data, createdAt: this.deps.clock.now() };
    const write = async (t: Knex) => {
      await t('events').insert({
        id: event.id,
        team_id: teamId,
        type,
        data: JSON.stringify(data),
        email_id: emailIdOfEvent(type, data),
        created_at: event.createdAt,
      });
      await this.enqueue(t, [event]);
    };
    // Outside a transaction, one is opened so the event and its webhook deliveries commit together.
    if (this.followers.length > 0 && !trx.isTransaction) await trx.transaction(write);
    else await write(trx);
    return event;
  }

  /**
   * Several events in the caller's transaction, in multi-row INSERTs (db/bulk-insert.ts), each
   * with its webhook fan-out: what a settle or hand-over of many emails records in one commit,
   * at a few statements instead of one per event. Same rows as `record`, in the given order.
   */
  async recordMany(
    trx: Knex.Transaction,
    entries: Array<{ teamId: string; type: EventType; data: Record<string, unknown> }>,
  ): Promise<LoggedEvent[]> {
    const createdAt = this.deps.clock.now();
    const events: LoggedEvent[] = entries.map((entry) => ({
      id: newId(),
      teamId: entry.teamId,
      type: entry.type,
      data: entry.data,
      createdAt,
    }));
    await bulkInsertObjects(
      trx,
      'events',
      events.map((event) => ({
        id: event.id,
        team_id: event.teamId,
        type: event.type,
        data: JSON.stringify(event.data),
        email_id: emailIdOfEvent(event.type, event.data),
        created_at: event.createdAt,
      })),
    );
    await this.enqueue(trx, events);
    return events;
  }

  /**
   * An event stored for no follower: no webhook fan-out, no automation trigger, no broadcast
   * result. Only a webhook test event (`POST /webhooks/{id}/test`) is written so: the caller adds
   * its one delivery, and the row is there for the dispatcher, the delivery log and replay to read.
   * It names a made-up email (`data.test`), so it is filed under no email.
   */
  async storeUnannounced(trx: Knex, event: LoggedEvent): Promise<void> {
    await trx('events').insert({
      id: event.id,
      team_id: event.teamId,
      type: event.type,
      data: JSON.stringify(event.data),
      created_at: event.createdAt,
    });
  }

  /** One recorded event by id, for webhook delivery. */
  async find(id: string): Promise<LoggedEvent | undefined> {
    const row = (await this.deps.knex('events').where({ id }).first()) as EventRow | undefined;
    return row ? toEvent(row) : undefined;
  }

  /** Events are kept for the team plan's retention window, like request logs. */
  async purgeExpired(batch = 1000): Promise<number> {
    return purgeByPlanRetention(this.deps.knex, 'events', this.deps.clock.now(), batch);
  }

  /**
   * One sent email's events, oldest first (its timeline), by the (email_id, id) index; the team
   * is part of the condition so another team's email id finds nothing.
   */
  async ofEmail(
    teamId: string,
    emailId: string,
    page: PageQuery,
  ): Promise<{ events: LoggedEvent[]; hasMore: boolean }> {
    const { rows, hasMore } = await paginateOldestFirst<EventRow>(
      this.deps.knex('events').where({ email_id: emailId, team_id: teamId }),
      page,
      'id',
      TIMELINE_PAGE_LIMIT,
    );
    return { events: rows.map(toEvent), hasMore };
  }

  /** Newest first; for tests and the CLI. */
  async list(teamId: string, options: { type?: EventType; limit?: number } = {}): Promise<LoggedEvent[]> {
    const query = this.deps.knex('events').where({ team_id: teamId });
    if (options.type) query.where({ type: options.type });
    const rows = (await query.orderBy('id', 'desc').limit(options.limit ?? 100)) as EventRow[];
    return rows.map(toEvent);
  }
}
