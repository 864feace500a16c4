import type { Knex } from 'knex';
import { claimRows } from '../../../db/claim.js';
import { readNullableTimestamp, readTimestamp } from '../../../db/dialect.js';
import type { EventType } from '../log/event.types.js';
import { paginateNewestFirst, type PageQuery } from '../../shared/pagination/list-query.js';
import { paginateOldestFirst } from '../../shared/pagination/oldest-first.js';
import type { DeliveryStatus, EmailWebhookDelivery, WebhookAttempt, WebhookDelivery } from './webhook.types.js';

type Row = Record<string, unknown>;

const toDelivery = (row: Row): WebhookDelivery => ({
  id: String(row.id),
  teamId: String(row.team_id),
  endpointId: String(row.endpoint_id),
  eventId: String(row.event_id),
  eventType: row.event_type as EventType,
  status: row.status as DeliveryStatus,
  attempts: Number(row.attempts),
  nextAttemptAt: readNullableTimestamp(row.next_attempt_at),
  leaseOwner: (row.lease_owner as string | null) ?? null,
  createdAt: readTimestamp(row.created_at),
  updatedAt: readTimestamp(row.updated_at),
});

const toAttempt = (row: Row): WebhookAttempt => ({
  id: String(row.id),
  deliveryId: String(row.delivery_id),
  teamId: String(row.team_id),
  statusCode: row.status_code === null || row.status_code === undefined ? null : Number(row.status_code),
  response: (row.response as string | null) ?? null,
  error: (row.error as string | null) ?? null,
  durationMs: Number(row.duration_ms),
  createdAt: readTimestamp(row.created_at),
});

/** Statuses a worker may claim from (when due). */
const OPEN: DeliveryStatus[] = ['pending', 'attempting'];

export class WebhookDeliveryRepository {
  constructor(private readonly knex: Knex) {}

  /** Deliveries not yet settled (pending or attempting): the outbox depth. */
  async countWaiting(): Promise<number> {
    const [row] = (await this.knex('webhook_deliveries')
      .whereIn('status', ['pending', 'attempting'])
      .count({ n: '*' })) as Array<{ n: number | string }>;
    return Number(row?.n ?? 0);
  }

  async insertMany(deliveries: WebhookDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.knex('webhook_deliveries').insert(
      deliveries.map((d) => ({
        id: d.id,
        team_id: d.teamId,
        endpoint_id: d.endpointId,
        event_id: d.eventId,
        event_type: d.eventType,
        status: d.status,
        attempts: d.attempts,
        next_attempt_at: d.nextAttemptAt,
        lease_owner: null,
        created_at: d.createdAt,
        updated_at: d.updatedAt,
      })),
    );
  }

  /**
   * Claims due deliveries for `token` (SKIP LOCKED on MySQL, one atomic UPDATE on SQLite).
   * While claimed, next_attempt_at holds the lease expiry: a worker that died leaves rows that
   * come due again by themselves.
   */
  async claim(limit: number, token: string, now: Date, leaseUntil: Date): Promise<WebhookDelivery[]> {
    const ids = await claimRows(this.knex, {
      table: 'webhook_deliveries',
      where: (q) => q.whereIn('status', OPEN).where('next_attempt_at', '<=', now),
      orderBy: 'next_attempt_at',
      limit,
      tokenColumn: 'lease_owner',
      token,
      set: { next_attempt_at: leaseUntil, updated_at: now },
      // API requests insert into the outbox while workers claim: no gap locks (see claimRows).
    });
    if (ids.length === 0) return [];
    return ((await this.knex('webhook_deliveries').whereIn('id', ids)) as Row[]).map(toDelivery);
  }

  /** Settles a claimed delivery; false when its lease was lost (taken back, or replayed meanwhile). */
  async settle(
    delivery: WebhookDelivery,
    changes: { status: DeliveryStatus; attempts: number; nextAttemptAt: Date | null; now: Date },
  ): Promise<boolean> {
    const updated = await this.knex('webhook_deliveries')
      .where({ id: delivery.id, lease_owner: delivery.leaseOwner })
      .update({
        status: changes.status,
        attempts: changes.attempts,
        next_attempt_at: changes.nextAttemptAt,
        lease_owner: null,
        updated_at: changes.now,
      });
    return updated === 1;
  }

  async insertAttempt(attempt: WebhookAttempt): Promise<void> {
    await this.knex('webhook_attempts').insert({
      id: attempt.id,
      delivery_id: attempt.deliveryId,
      team_id: attempt.teamId,
      status_code: attempt.statusCode,
      response: attempt.response,
      error: attempt.error,
      duration_ms: attempt.durationMs,
      created_at: attempt.createdAt,
    });
  }

  /** Ends every open delivery of an endpoint (it was disabled). */
  async failOpen(endpointId: string, now: Date): Promise<number> {
    return this.knex('webhook_deliveries')
      .where({ endpoint_id: endpointId })
      .whereIn('status', OPEN)
      .update({ status: 'failed', next_attempt_at: null, updated_at: now });
  }

  /** Makes a delivery due now with a fresh retry schedule; any lease held on it is void. */
  async replay(id: string, now: Date): Promise<void> {
    await this.knex('webhook_deliveries')
      .where({ id })
      .update({ status: 'pending', attempts: 0, next_attempt_at: now, lease_owner: null, updated_at: now });
  }

  async delete(id: string): Promise<void> {
    await this.knex('webhook_deliveries').where({ id }).delete();
  }

  async ofEndpoint(endpointId: string, page: PageQuery): Promise<{ deliveries: WebhookDelivery[]; hasMore: boolean }> {
    const { rows, hasMore } = await paginateNewestFirst<Row>(
      this.knex('webhook_deliveries').where({ endpoint_id: endpointId }),
      page,
      'event_id',
    );
    return { deliveries: rows.map(toDelivery), hasMore };
  }

  async findByEvent(endpointId: string, eventId: string): Promise<WebhookDelivery | undefined> {
    const row = (await this.knex('webhook_deliveries')
      .where({ endpoint_id: endpointId, event_id: eventId })
      .first()) as Row | undefined;
    return row ? toDelivery(row) : undefined;
  }

  async attemptsOf(deliveryId: string, page: PageQuery): Promise<{ attempts: WebhookAttempt[]; hasMore: boolean }> {
    const { rows, hasMore } = await paginateNewestFirst<Row>(
      this.knex('webhook_attempts').where({ delivery_id: deliveryId }),
      page,
    );
    return { attempts: rows.map(toAttempt), hasMore };
  }

  /** Deletes an endpoint's deliveries and their attempts, `batch` at a time. */
  async deleteOfEndpoint(endpointId: string, batch = 500): Promise<void> {
    for (;;) {
      const ids = (
        (await this.knex('webhook_deliveries').select('id').where({ endpoint_id: endpointId }).limit(batch)) as Row[]
      ).map((row) => String(row.id));
      if (ids.length === 0) return;
      await this.knex('webhook_attempts').whereIn('delivery_id', ids).delete();
      await this.knex('webhook_deliveries').whereIn('id', ids).delete();
    }
  }

  /**
   * The deliveries of one email's events, oldest first by delivery id: the email's events by the
   * events (email_id, id) index, their deliveries by webhook_deliveries (event_id), each
   * delivery's last attempt by webhook_attempts (delivery_id, id). An email has few events, so
   * the join is small whatever the size of the outbox.
   */
  async ofEmail(
    teamId: string,
    emailId: string,
    page: PageQuery,
    defaultLimit: number,
  ): Promise<{ deliveries: EmailWebhookDelivery[]; hasMore: boolean }> {
    const query = this.knex('events')
      .join('webhook_deliveries', 'webhook_deliveries.event_id', 'events.id')
      .leftJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
      .where({ 'events.email_id': emailId, 'events.team_id': teamId, 'webhook_deliveries.team_id': teamId })
      .select('webhook_deliveries.*', 'webhook_endpoints.url as endpoint_url');
    const { rows, hasMore } = await paginateOldestFirst<Row>(query, page, 'webhook_deliveries.id', defaultLimit);
    const last = await this.lastAttempts(rows.map((row) => String(row.id)));
    return {
      deliveries: rows.map((row) => ({
        ...toDelivery(row),
        endpointUrl: (row.endpoint_url as string | null) ?? null,
        lastStatusCode: last.get(String(row.id))?.statusCode ?? null,
        lastAttemptAt: last.get(String(row.id))?.createdAt ?? null,
      })),
      hasMore,
    };
  }

  /** The newest attempt of each delivery (attempt ids are time-ordered). */
  private async lastAttempts(deliveryIds: string[]): Promise<Map<string, WebhookAttempt>> {
    if (deliveryIds.length === 0) return new Map();
    const newest = this.knex('webhook_attempts')
      .max({ id: 'id' })
      .whereIn('delivery_id', deliveryIds)
      .groupBy('delivery_id');
    const rows = (await this.knex('webhook_attempts')
      .select('id', 'delivery_id', 'team_id', 'status_code', 'duration_ms', 'created_at')
      .whereIn('id', newest)) as Row[];
    return new Map(rows.map((row) => [String(row.delivery_id), toAttempt(row)]));
  }
}
