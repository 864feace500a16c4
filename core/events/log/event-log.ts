import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { readJson, readTimestamp } from '../../../db/dialect.js';
import { newId } from '../../../lib/ids.js';
import { purgeByPlanRetention } from '../../platform/retention/plan-retention.js';
import type { EventType, LoggedEvent } from './event.types.js';

type EventRow = { id: string; team_id: string; type: string; data: string; created_at: unknown };

const toEvent = (row: EventRow): LoggedEvent => ({
  id: row.id,
  teamId: row.team_id,
  type: row.type as EventType,
  data: readJson(row.data, {}),
  createdAt: readTimestamp(row.created_at),
});

/** Rows per multi-row INSERT of events: 5 columns each, far inside the bound-variable limits. */
const EVENT_CHUNK = 100;

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
   * Several events in the caller's transaction, in multi-row INSERTs of EVENT_CHUNK rows, each
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
    for (let i = 0; i < events.length; i += EVENT_CHUNK) {
      const chunk = events.slice(i, i + EVENT_CHUNK);
      await trx('events').insert(
        chunk.map((event) => ({
          id: event.id,
          team_id: event.teamId,
          type: event.type,
          data: JSON.stringify(event.data),
          created_at: event.createdAt,
        })),
      );
    }
    await this.enqueue(trx, events);
    return events;
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

  /** Newest first; for tests and the CLI. */
  async list(teamId: string, options: { type?: EventType; limit?: number } = {}): Promise<LoggedEvent[]> {
    const query = this.deps.knex('events').where({ team_id: teamId });
    if (options.type) query.where({ type: options.type });
    const rows = (await query.orderBy('id', 'desc').limit(options.limit ?? 100)) as EventRow[];
    return rows.map(toEvent);
  }
}
