import type { Knex } from 'knex';
import { claimRows } from '../../../db/claim.js';
import { readBoolean, readNullableTimestamp, readTimestamp } from '../../../db/dialect.js';
import { newId } from '../../../lib/ids.js';
import type { AttemptRecord, Delivery, DeliveryState, Lane, QueueFilter } from './delivery.types.js';

type Row = Record<string, unknown>;

const toDelivery = (row: Row): Delivery => ({
  id: String(row.id),
  emailId: String(row.email_id),
  teamId: String(row.team_id),
  domainId: String(row.domain_id),
  recipient: String(row.recipient),
  recipientDomain: String(row.recipient_domain),
  lane: row.lane as Lane,
  state: row.state as DeliveryState,
  attempts: Number(row.attempts),
  nextAttemptAt: readTimestamp(row.next_attempt_at),
  leaseOwner: (row.lease_owner as string | null) ?? null,
  leaseUntil: readNullableTimestamp(row.lease_until),
  egressIp: (row.egress_ip as string | null) ?? null,
  lastReply: (row.last_reply as string | null) ?? null,
  delayNotified: readBoolean(row.delay_notified),
  expiresAt: readTimestamp(row.expires_at),
  createdAt: readTimestamp(row.created_at),
  updatedAt: readTimestamp(row.updated_at),
});

/** Rows per INSERT: 18 columns each, well inside SQLite's and MySQL's bound-variable limits. */
const INSERT_CHUNK = 100;

/** States a worker may claim from; `sending` only once its lease (kept in next_attempt_at) ran out. */
const CLAIMABLE: DeliveryState[] = ['queued', 'deferred', 'sending'];
/** States an operator command may change: not settled ones, not one a worker holds right now. */
const WAITING: DeliveryState[] = ['queued', 'deferred', 'held'];
/** Not settled yet: what the queue holds. */
const QUEUE_STATES: DeliveryState[] = ['queued', 'deferred', 'sending', 'held'];

export class DeliveryRepository {
  constructor(private readonly knex: Knex) {}

  /** In multi-row INSERTs of INSERT_CHUNK rows (a hand-over of many emails stays within bind-variable limits). */
  async insertMany(deliveries: Delivery[]): Promise<void> {
    for (let i = 0; i < deliveries.length; i += INSERT_CHUNK)
      await this.insertChunk(deliveries.slice(i, i + INSERT_CHUNK));
  }

  private async insertChunk(deliveries: Delivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.knex('deliveries').insert(
      deliveries.map((d) => ({
        id: d.id,
        email_id: d.emailId,
        team_id: d.teamId,
        domain_id: d.domainId,
        recipient: d.recipient,
        recipient_domain: d.recipientDomain,
        lane: d.lane,
        state: d.state,
        attempts: d.attempts,
        next_attempt_at: d.nextAttemptAt,
        // Set when the handing-over worker keeps the delivery for itself (see HandOverService).
        lease_owner: d.leaseOwner,
        lease_until: d.leaseUntil,
        egress_ip: null,
        last_reply: null,
        delay_notified: false,
        expires_at: d.expiresAt,
        created_at: d.createdAt,
        updated_at: d.updatedAt,
      })),
    );
  }

  /**
   * Claims due deliveries of one lane for `token`. While a row is `sending`, next_attempt_at
   * holds its lease expiry: a worker that died leaves a row that becomes due again by itself.
   */
  async claim(lane: Lane, limit: number, token: string, now: Date, leaseUntil: Date): Promise<Delivery[]> {
    const ids = await claimRows(this.knex, {
      table: 'deliveries',
      where: (q) => q.whereIn('state', CLAIMABLE).where({ lane }).where('next_attempt_at', '<=', now),
      orderBy: 'next_attempt_at',
      limit,
      tokenColumn: 'lease_owner',
      token,
      set: { state: 'sending', lease_until: leaseUntil, next_attempt_at: leaseUntil, updated_at: now },
    });
    if (ids.length === 0) return [];
    return ((await this.knex('deliveries').whereIn('id', ids)) as Row[]).map(toDelivery);
  }

  /**
   * Extends the leases of claimed deliveries still being worked on (held by their token, not yet
   * settled); returns how many were extended. A lease that was lost stays lost.
   */
  async renewLeases(deliveries: readonly Delivery[], now: Date, leaseUntil: Date): Promise<number> {
    let renewed = 0;
    for (const [owner, group] of groupByOwner(deliveries)) {
      renewed += await this.knex('deliveries')
        .whereIn(
          'id',
          group.map((d) => d.id),
        )
        .where({ lease_owner: owner, state: 'sending' })
        .update({ lease_until: leaseUntil, next_attempt_at: leaseUntil, updated_at: now });
    }
    return renewed;
  }

  /** Settles a claimed delivery; false when the lease was lost (another worker took it back). */
  async settle(delivery: Delivery, changes: Record<string, unknown>): Promise<boolean> {
    const updated = await this.knex('deliveries')
      .where({ id: delivery.id, lease_owner: delivery.leaseOwner, state: 'sending' })
      .update({ ...changes, lease_owner: null, lease_until: null });
    return updated === 1;
  }

  async insertAttempt(
    delivery: Delivery,
    outcome: 'delivered' | 'deferred' | 'bounced',
    attempt: AttemptRecord,
    now: Date,
  ): Promise<void> {
    await this.insertAttempts([{ delivery, outcome, attempt }], now);
  }

  /** The attempts of a settle, in multi-row INSERTs of INSERT_CHUNK rows. */
  async insertAttempts(
    attempts: Array<{ delivery: Delivery; outcome: 'delivered' | 'deferred' | 'bounced'; attempt: AttemptRecord }>,
    now: Date,
  ): Promise<void> {
    const rows = attempts.map(({ delivery, outcome, attempt }) => ({
      id: newId(),
      delivery_id: delivery.id,
      email_id: delivery.emailId,
      team_id: delivery.teamId,
      egress_ip: attempt.egressIp,
      mx_host: attempt.mxHost,
      outcome,
      reply: attempt.reply,
      transcript: attempt.transcript,
      duration_ms: Math.round(attempt.durationMs),
      created_at: now,
    }));
    for (let i = 0; i < rows.length; i += INSERT_CHUNK)
      await this.knex('delivery_attempts').insert(rows.slice(i, i + INSERT_CHUNK));
  }

  async ofEmail(emailId: string): Promise<Delivery[]> {
    return ((await this.knex('deliveries').where({ email_id: emailId }).orderBy('recipient')) as Row[]).map(toDelivery);
  }

  async attemptsOf(deliveryId: string): Promise<Row[]> {
    return (await this.knex('delivery_attempts').where({ delivery_id: deliveryId }).orderBy('created_at')) as Row[];
  }

  /** The earliest time any claimable delivery is due, so an idle worker can sleep until then. */
  async nextDue(): Promise<Date | null> {
    const row = (await this.knex('deliveries').whereIn('state', CLAIMABLE).min({ at: 'next_attempt_at' }).first()) as
      { at: unknown } | undefined;
    return row?.at ? readTimestamp(row.at) : null;
  }

  private filtered(filter: QueueFilter, states: DeliveryState[]): Knex.QueryBuilder {
    const query = this.knex('deliveries').whereIn('state', states);
    if (filter.emailId) query.where({ email_id: filter.emailId });
    if (filter.recipientDomain) query.where({ recipient_domain: filter.recipientDomain.toLowerCase() });
    if (filter.teamId) query.where({ team_id: filter.teamId });
    return query;
  }

  /** Operator: hold waiting deliveries (no worker claims them until released). */
  async hold(filter: QueueFilter, now: Date): Promise<number> {
    return this.filtered(filter, ['queued', 'deferred']).update({ state: 'held', updated_at: now });
  }

  /**
   * Claimed deliveries whose destination turned out to be held (a hold placed while they were
   * being handed over or claimed) go back to waiting as `held`, under the claimer's token only.
   */
  async returnToHeld(ids: string[], token: string, now: Date): Promise<number> {
    if (ids.length === 0) return 0;
    return this.knex('deliveries')
      .whereIn('id', ids)
      .where({ lease_owner: token, state: 'sending' })
      .update({ state: 'held', lease_owner: null, lease_until: null, next_attempt_at: now, updated_at: now });
  }

  /**
   * Claimed deliveries go back to waiting until `until` without an attempt (traffic shaping or
   * warm-up said not now): nothing was sent, so nothing is recorded but the new due time.
   */
  async postpone(deliveries: readonly Delivery[], until: Date, now: Date): Promise<number> {
    let moved = 0;
    for (const [owner, group] of groupByOwner(deliveries)) {
      for (const fresh of [true, false]) {
        const ids = group.filter((d) => (d.attempts === 0) === fresh).map((d) => d.id);
        if (ids.length === 0) continue;
        moved += await this.knex('deliveries')
          .whereIn('id', ids)
          .where({ lease_owner: owner, state: 'sending' })
          .update({
            state: fresh ? 'queued' : 'deferred',
            lease_owner: null,
            lease_until: null,
            next_attempt_at: until,
            updated_at: now,
          });
      }
    }
    return moved;
  }

  /** Operator: held deliveries go back to the queue, due now. */
  async release(filter: QueueFilter, now: Date): Promise<number> {
    return this.filtered(filter, ['held']).update({ state: 'queued', next_attempt_at: now, updated_at: now });
  }

  /** Operator: deferred (and queued) deliveries become due now. */
  async retryNow(filter: QueueFilter, now: Date): Promise<number> {
    return this.filtered(filter, ['queued', 'deferred']).update({ next_attempt_at: now, updated_at: now });
  }

  /** Waiting deliveries matching the filter, for purge (which records email.failed for each). */
  async waiting(filter: QueueFilter, limit: number): Promise<Delivery[]> {
    return ((await this.filtered(filter, WAITING).limit(limit)) as Row[]).map(toDelivery);
  }

  async deleteWaiting(id: string): Promise<boolean> {
    return (await this.knex('deliveries').where({ id }).whereIn('state', WAITING).delete()) === 1;
  }

  /** When the longest-waiting due delivery became due (queued or deferred, due by `now`), if any. */
  async oldestDue(now: Date): Promise<Date | null> {
    const [row] = (await this.knex('deliveries')
      .whereIn('state', ['queued', 'deferred'])
      .where('next_attempt_at', '<=', now)
      .min({ oldest: 'next_attempt_at' })) as Array<{ oldest: unknown }>;
    return row?.oldest === null || row?.oldest === undefined ? null : readTimestamp(row.oldest);
  }

  /** Deliveries still in the queue (not settled) by state and lane: the index on (state, lane, ...) answers it. */
  async queueDepth(): Promise<Array<{ state: string; lane: string; count: number }>> {
    const rows = (await this.knex('deliveries')
      .select('state', 'lane')
      .count({ n: '*' })
      .whereIn('state', QUEUE_STATES)
      .groupBy('state', 'lane')) as Array<{ state: string; lane: string; n: number | string }>;
    return rows.map((row) => ({ state: row.state, lane: row.lane, count: Number(row.n) }));
  }

  /** Counts by state, destination and age, for `mailroom queue`. */
  async summary(): Promise<{
    byState: Record<string, number>;
    byDestination: Array<{ domain: string; state: string; count: number; oldest: Date }>;
  }> {
    const states = (await this.knex('deliveries').select('state').count({ n: '*' }).groupBy('state')) as Array<{
      state: string;
      n: number | string;
    }>;
    const destinations = (await this.knex('deliveries')
      .select('recipient_domain', 'state')
      .count({ n: '*' })
      .min({ oldest: 'created_at' })
      .whereIn('state', ['queued', 'deferred', 'sending', 'held'])
      .groupBy('recipient_domain', 'state')
      .orderBy('recipient_domain')) as Array<{
      recipient_domain: string;
      state: string;
      n: number | string;
      oldest: unknown;
    }>;
    return {
      byState: Object.fromEntries(states.map((s) => [s.state, Number(s.n)])),
      byDestination: destinations.map((d) => ({
        domain: d.recipient_domain,
        state: d.state,
        count: Number(d.n),
        oldest: readTimestamp(d.oldest),
      })),
    };
  }
}

/** Claimed deliveries by the lease token they were claimed with (one per claim). */
function groupByOwner(deliveries: readonly Delivery[]): Map<string, Delivery[]> {
  const byOwner = new Map<string, Delivery[]>();
  for (const d of deliveries) {
    if (!d.leaseOwner) continue;
    const group = byOwner.get(d.leaseOwner);
    if (group) group.push(d);
    else byOwner.set(d.leaseOwner, [d]);
  }
  return byOwner;
}
