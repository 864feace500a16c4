import type { Knex } from 'knex';
import { readNullableTimestamp, readTimestamp } from '../../db/dialect.js';
import type { DeliveryService } from '../../core/sending/deliveries/delivery.service.js';
import { DELIVERY_STATES, type Delivery } from '../../core/sending/deliveries/delivery.types.js';
import { QueueInspection, type AttemptView } from '../../core/sending/deliveries/queue-inspection.js';
import { NotFoundError } from '../../lib/errors.js';

/** Not settled yet: what the queue holds. */
const QUEUE_STATES = ['queued', 'deferred', 'sending', 'held'];

const iso = (date: Date | null) => (date ? date.toISOString() : null);
export const ageSeconds = (now: Date, since: Date) => Math.max(0, Math.floor((now.getTime() - since.getTime()) / 1000));

/** When a delivery will next be tried: its due time while waiting, its lease end while sending. */
function nextAttempt(delivery: Pick<Delivery, 'state' | 'nextAttemptAt' | 'leaseUntil'>): string | null {
  if (delivery.state === 'queued' || delivery.state === 'deferred') return iso(delivery.nextAttemptAt);
  if (delivery.state === 'sending') return iso(delivery.leaseUntil);
  return null;
}

export function attemptView(attempt: AttemptView) {
  const view = {
    at: iso(attempt.at),
    outcome: attempt.outcome,
    egress_ip: attempt.egressIp,
    mx_host: attempt.mxHost,
    reply: attempt.reply,
    duration_ms: attempt.durationMs,
  };
  return attempt.transcript === undefined ? view : { ...view, transcript: attempt.transcript };
}

/**
 * Read-only views of the outbound queue for the operator, shared by `mailroom queue` and the
 * admin API (/admin/queue...): the same numbers and the same delivery and attempt shapes.
 */
export class QueueViews {
  private readonly inspection: QueueInspection;

  constructor(
    private readonly knex: Knex,
    private readonly deliveries: DeliveryService,
  ) {
    this.inspection = new QueueInspection(knex);
  }

  /** Depth by state and lane, the oldest due delivery, and waiting mail by destination and egress address. */
  async overview(now: Date) {
    const { byState, byDestination } = await this.deliveries.summary();
    const lanes = await this.deliveries.repository.queueDepth();
    const oldestDue = await this.deliveries.repository.oldestDue(now);
    const egress = (await this.knex('deliveries')
      .select('egress_ip', 'state')
      .count({ n: '*' })
      .whereIn('state', QUEUE_STATES)
      .groupBy('egress_ip', 'state')
      .orderBy(['egress_ip', 'state'])) as Array<{ egress_ip: string | null; state: string; n: number | string }>;
    return {
      states: Object.fromEntries(DELIVERY_STATES.map((state) => [state, byState[state] ?? 0])),
      lanes: lanes.sort((a, b) => a.lane.localeCompare(b.lane) || a.state.localeCompare(b.state)),
      oldest_due_at: iso(oldestDue),
      oldest_due_seconds: oldestDue ? ageSeconds(now, oldestDue) : null,
      destinations: byDestination.map((d) => ({
        domain: d.domain,
        state: d.state,
        count: d.count,
        oldest_seconds: ageSeconds(now, d.oldest),
      })),
      egress: egress.map((row) => ({ address: row.egress_ip ?? null, state: row.state, count: Number(row.n) })),
    };
  }

  /** Deliveries of an email and/or to a recipient address, newest first; one more than `limit` tells has_more. */
  async search(query: { emailId?: string; recipient?: string }, limit: number) {
    const rows = this.knex('deliveries').orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
    if (query.emailId) rows.where({ email_id: query.emailId });
    if (query.recipient) {
      const address = query.recipient.toLowerCase();
      // The domain narrows the search through the (recipient_domain, state) index; the address is
      // then compared case-insensitively among that domain's deliveries only.
      rows.where({ recipient_domain: address.slice(address.lastIndexOf('@') + 1) });
      rows.whereRaw('lower(recipient) = ?', [address]);
    }
    const found = (await rows.limit(limit + 1)) as Array<Record<string, unknown>>;
    const data = found.slice(0, limit).map((row) => {
      const state = String(row.state) as Delivery['state'];
      return {
        object: 'queued_delivery' as const,
        id: String(row.id),
        email_id: String(row.email_id),
        team_id: String(row.team_id),
        recipient: String(row.recipient),
        recipient_domain: String(row.recipient_domain),
        state,
        lane: String(row.lane),
        attempts: Number(row.attempts),
        next_attempt_at: nextAttempt({
          state,
          nextAttemptAt: readTimestamp(row.next_attempt_at),
          leaseUntil: readNullableTimestamp(row.lease_until),
        }),
        expires_at: iso(readNullableTimestamp(row.expires_at)),
        last_reply: (row.last_reply as string | null) ?? null,
        egress_ip: (row.egress_ip as string | null) ?? null,
        created_at: readTimestamp(row.created_at).toISOString(),
      };
    });
    return { data, hasMore: found.length > limit };
  }

  /** Every delivery of one email and every attempt of each (`mailroom queue show`); 404 when none. */
  async email(emailId: string, transcripts: boolean) {
    const email = await this.deliveries.email(emailId);
    const rows = await this.deliveries.repository.ofEmail(emailId);
    if (!email && rows.length === 0) throw new NotFoundError(`No email ${emailId} (and no deliveries of it)`);
    const deliveries = [];
    for (const d of rows) {
      deliveries.push({
        id: d.id,
        recipient: d.recipient,
        state: d.state,
        lane: d.lane,
        attempts: d.attempts,
        next_attempt_at: nextAttempt(d),
        expires_at: iso(d.expiresAt),
        last_reply: d.lastReply,
        egress_ip: d.egressIp,
        attempt_log: (await this.inspection.attempts(d.id, transcripts)).map(attemptView),
      });
    }
    const emailView = email && {
      id: email.id,
      team_id: email.teamId,
      from: email.fromAddress,
      subject: email.subject,
      last_event: email.lastEvent,
      created_at: iso(email.createdAt),
    };
    return { email: emailView ?? null, deliveries };
  }
}
