import type { Knex } from 'knex';
import { commitPart, GroupCommitter } from '../../../db/group-commit.js';
import type { LookupCache } from '../../../lib/cache/lookup-cache.js';
import type { Clock } from '../../../lib/clock.js';
import type { EmailTransition, EmailTransitions } from '../emails/email-transitions.js';
import { EmailRepository } from '../emails/email.repository.js';
import type { Email } from '../emails/email.types.js';
import type { EventLog } from '../../events/log/event-log.js';
import type { SuppressionService } from '../suppressions/suppression.service.js';
import { DeliveryRepository } from './delivery.repository.js';
import { HandOverService, type HandOverResult, type HandOverTake } from './hand-over.service.js';
import { retryConflicts } from '../../../db/retry.js';
import { settleRows } from './settle-rows.js';
import { EgressBlockRepository } from './egress-block.repository.js';
import { DestinationHoldRepository } from './destination-hold.repository.js';
import type { AttemptRecord, BounceDetails, Delivery, Lane, QueueFilter } from './delivery.types.js';

export type DeliveryServiceDeps = {
  knex: Knex;
  clock: Clock;
  events: EventLog;
  emailTransitions: EmailTransitions;
  suppressions: SuppressionService;
  /** A delivery not done after this long bounces. */
  maxQueueSeconds: number;
  /** Resting egress addresses are read through it (see restingEgress). */
  cache?: LookupCache;
};

/** What a settle records besides the delivery rows: its events, and what commits with them. */
type Announcement = {
  events: EmailTransition[];
  delayNotified?: string[];
  alongside?: (trx: Knex.Transaction) => Promise<void>;
};

/** One outcome waiting for the next settle group; `settled` is filled in by the group's write. */
type SettleRequest = {
  group: Delivery[];
  attempt: AttemptRecord;
  outcome: 'delivered' | 'deferred' | 'bounced';
  changes: Record<string, unknown>;
  announce: (settled: Delivery[]) => Announcement;
  settled: Delivery[];
};

/**
 * The outbound queue's state changes. Accepted emails are handed over (one delivery per
 * recipient, `email.sent`), workers claim deliveries with a lease, and every outcome settles
 * the claimed rows, records the attempt and the event, and moves the email's last_event in one
 * transaction. A settle whose lease was lost changes nothing, so a delivery taken back from a
 * slow worker is never announced twice.
 */
export class DeliveryService {
  readonly repository: DeliveryRepository;
  readonly blocks: EgressBlockRepository;
  private readonly holds: DestinationHoldRepository;
  private readonly emails: EmailRepository;
  /** One settle transaction at a time; the next group gathers while it commits. */
  private readonly settles: GroupCommitter;
  private readonly handOvers: HandOverService;

  constructor(private readonly deps: DeliveryServiceDeps) {
    this.settles = new GroupCommitter(deps.knex, 1, 200);
    this.handOvers = new HandOverService(deps);
    this.repository = new DeliveryRepository(deps.knex);
    this.emails = new EmailRepository(deps.knex);
    this.blocks = new EgressBlockRepository(deps.knex);
    this.holds = new DestinationHoldRepository(deps.knex);
  }

  /** queued emails -> deliveries (see HandOverService); returns how many emails were handed over. */
  async handOver(limit = 200, lane: Lane = 'transactional'): Promise<number> {
    return (await this.handOvers.handOver(limit, lane)).handed;
  }

  /** A hand-over in which the worker keeps the deliveries it has room for, already leased to it. */
  handOverAndTake(take: HandOverTake, limit = 200, lane: Lane = 'transactional'): Promise<HandOverResult> {
    return this.handOvers.handOver(limit, lane, take);
  }

  async claim(lane: Lane, limit: number, token: string, leaseMs: number): Promise<Delivery[]> {
    const now = this.deps.clock.now();
    // Claims running side by side can deadlock on the queue index's gap locks: try again.
    const claimed = await retryConflicts(() =>
      this.repository.claim(lane, limit, token, now, new Date(now.getTime() + leaseMs)),
    );
    return this.withoutHeldDestinations(claimed, token, now);
  }

  /**
   * A hold marks what is waiting and what is handed over after it; a delivery that slipped
   * between the two (handed over while the hold was being placed) is caught here, before any
   * attempt, and goes back to waiting as held.
   */
  private async withoutHeldDestinations(claimed: Delivery[], token: string, now: Date): Promise<Delivery[]> {
    if (claimed.length === 0) return claimed;
    const held = await this.holds.heldAmong(claimed.map((d) => d.recipientDomain));
    if (held.size === 0) return claimed;
    const back = claimed.filter((d) => held.has(d.recipientDomain));
    await this.repository.returnToHeld(
      back.map((d) => d.id),
      token,
      now,
    );
    return claimed.filter((d) => !held.has(d.recipientDomain));
  }

  /**
   * Keeps the leases of claimed deliveries while they are worked on: an attempt may outlast
   * one lease (slow servers, several MX hosts, many messages over one connection), and a lease
   * that ran out mid-attempt would let another worker send the same messages again.
   */
  renewLeases(deliveries: readonly Delivery[], leaseMs: number): Promise<number> {
    const now = this.deps.clock.now();
    return retryConflicts(() => this.repository.renewLeases(deliveries, now, new Date(now.getTime() + leaseMs)));
  }

  /** Claimed deliveries wait until `until`, with no attempt counted (shaping, warm-up). */
  postpone(deliveries: readonly Delivery[], until: Date): Promise<number> {
    if (deliveries.length === 0) return Promise.resolve(0);
    return retryConflicts(() => this.repository.postpone(deliveries, until, this.deps.clock.now()));
  }

  async email(id: string): Promise<Email | undefined> {
    return this.emails.findById(id);
  }

  /** A claim's emails in one query (those still there: retention may have purged some). */
  async emailsByIds(ids: string[]): Promise<Email[]> {
    return this.emails.findByIds(ids);
  }

  /** The recipients' server accepted: email.delivered for them. */
  async delivered(email: Email, group: Delivery[], attempt: AttemptRecord): Promise<Delivery[]> {
    return this.settle(group, attempt, 'delivered', { state: 'delivered' }, (settled) => ({
      events: [{ email, type: 'email.delivered', recipients: settled.map((d) => d.recipient) }],
    }));
  }

  /**
   * A temporary failure: retried at `nextAttemptAt`. The first deferral of a delivery announces
   * email.delivery_delayed; later ones are quiet.
   */
  async deferred(
    email: Email,
    group: Delivery[],
    attempt: AttemptRecord,
    nextAttemptAt: Date,
    delayType: string,
  ): Promise<Delivery[]> {
    return this.settle(group, attempt, 'deferred', { state: 'deferred', next_attempt_at: nextAttemptAt }, (settled) => {
      const first = settled.filter((d) => !d.delayNotified);
      if (first.length === 0) return { events: [] };
      const recipients = first.map((d) => d.recipient);
      const expirationTime = new Date(Math.min(...first.map((d) => d.expiresAt.getTime()))).toISOString();
      return {
        events: [
          {
            email,
            type: 'email.delivery_delayed',
            extra: { delay: { type: delayType, expirationTime, delayedRecipients: recipients } },
            recipients,
          },
        ],
        delayNotified: first.map((d) => d.id),
      };
    });
  }

  /** A permanent failure (or expiry): email.bounced; a hard bounce suppresses the recipient, in the same transaction. */
  async bounced(
    email: Email,
    group: Delivery[],
    attempt: AttemptRecord,
    bounce: BounceDetails,
    hard: boolean,
  ): Promise<Delivery[]> {
    return this.settle(group, attempt, 'bounced', { state: 'bounced' }, (rows) => {
      const recipients = rows.map((d) => d.recipient);
      return {
        events: [{ email, type: 'email.bounced', extra: { bounce }, recipients }],
        alongside: hard
          ? async (trx) =>
              void (await this.deps.suppressions.addMany(email.teamId, recipients, 'bounce', email.id, trx))
          : undefined,
      };
    });
  }

  /** The recipient's server accepted and the recipient then complained (the simulator's complained@). */
  async complained(email: Email, group: Delivery[], attempt: AttemptRecord): Promise<Delivery[]> {
    return this.settle(group, attempt, 'delivered', { state: 'delivered' }, (settled) => {
      const recipients = settled.map((d) => d.recipient);
      return {
        events: [
          { email, type: 'email.delivered', recipients },
          { email, type: 'email.complained', recipients },
        ],
      };
    });
  }

  /** Not sent because the recipient is suppressed (the simulator's suppressed@). */
  async suppressed(email: Email, group: Delivery[], attempt: AttemptRecord, message: string): Promise<Delivery[]> {
    return this.settle(group, attempt, 'bounced', { state: 'suppressed' }, (settled) => ({
      events: [
        {
          email,
          type: 'email.suppressed',
          extra: { suppressed: { reason: 'suppressed', type: 'suppression_list', message, diagnosticCode: [] } },
          recipients: settled.map((d) => d.recipient),
        },
      ],
    }));
  }

  /** The email cannot be sent at all (its domain or stored message is gone): email.failed. */
  async failed(email: Email, group: Delivery[], attempt: AttemptRecord, reason: string): Promise<Delivery[]> {
    return this.settle(group, attempt, 'bounced', { state: 'failed' }, (settled) => ({
      events: [
        { email, type: 'email.failed', extra: { failed: { reason } }, recipients: settled.map((d) => d.recipient) },
      ],
    }));
  }

  /**
   * Settles through the group committer: outcomes arriving while a settle transaction commits
   * wait and are written together in the next one, so a worker with many messages in flight
   * pays a few statements and one durable commit per group instead of per message (see
   * writeSettles). A lost lease still changes nothing; a group that fails is retried outcome by
   * outcome, so one failure stays with its own deliveries; a deadlock victim is run again.
   */
  private async settle(
    group: Delivery[],
    attempt: AttemptRecord,
    outcome: SettleRequest['outcome'],
    changes: Record<string, unknown>,
    announce: SettleRequest['announce'],
  ): Promise<Delivery[]> {
    const request: SettleRequest = { group, attempt, outcome, changes, announce, settled: [] };
    await retryConflicts(() =>
      this.settles.commit([commitPart('settle', request, (trx, requests) => this.writeSettles(trx, requests))]),
    );
    return request.settled;
  }

  /** One group's outcomes: the delivery rows, their attempts, the events and whatever goes with them. */
  private async writeSettles(trx: Knex.Transaction, requests: SettleRequest[]): Promise<void> {
    const now = this.deps.clock.now();
    const rows = requests.flatMap(({ group, changes, attempt }) =>
      group.map((delivery) => ({
        delivery,
        row: {
          ...changes,
          attempts: delivery.attempts + 1,
          egress_ip: attempt.egressIp,
          last_reply: attempt.reply,
          updated_at: now,
        },
      })),
    );
    const settledIds = await settleRows(trx, rows, { optimistic: requests.length > 1 });
    const announcements: Announcement[] = [];
    for (const request of requests) {
      request.settled = request.group.filter((d) => settledIds.has(d.id));
      // A delivery appears in one request of a group at most; a repeat settles nothing.
      for (const d of request.settled) settledIds.delete(d.id);
      if (request.settled.length > 0) announcements.push(request.announce(request.settled));
    }
    const repository = new DeliveryRepository(trx);
    await repository.insertAttempts(
      requests.flatMap(({ settled, outcome, attempt }) => settled.map((delivery) => ({ delivery, outcome, attempt }))),
      now,
    );
    const delayNotified = announcements.flatMap((a) => a.delayNotified ?? []);
    if (delayNotified.length > 0) await trx('deliveries').whereIn('id', delayNotified).update({ delay_notified: true });
    await this.deps.emailTransitions.recordMany(
      trx,
      announcements.flatMap((a) => a.events),
    );
    for (const { alongside } of announcements) await alongside?.(trx);
  }

  /** A blocklisting-style rejection of `egressIp` by `destination` (see EgressBlockRepository). */
  async strikeEgress(
    egressIp: string,
    destination: string,
    reply: string,
    threshold: number,
    restSeconds: number,
  ): Promise<void> {
    const now = this.deps.clock.now();
    await this.blocks.strike(
      egressIp,
      destination,
      reply,
      threshold,
      new Date(now.getTime() + restSeconds * 1000),
      now,
    );
  }

  /**
   * Addresses resting from `destination` (or disabled everywhere). Every claim asks, so the
   * answer is kept for the look-up cache's time (api.lookupCacheMs, 1 s): a strike or an
   * operator's change made in this process empties it at once (egress_blocks is a watched
   * table), one made by another process is seen within that time.
   */
  async restingEgress(destination: string): Promise<ReadonlySet<string>> {
    const read = () => this.blocks.resting(destination, this.deps.clock.now());
    if (!this.deps.cache) return read();
    return (await this.deps.cache.get(`resting-egress:${destination.toLowerCase()}`, read)) ?? new Set();
  }

  /**
   * Operator: a standing hold on a recipient domain. What waits for it now is held, and so is
   * what is handed over later, until releaseDestination. An attempt already under way finishes.
   */
  async holdDestination(hold: { domain: string; reason: string | null; heldBy: string | null }) {
    const now = this.deps.clock.now();
    const created = await this.holds.add({ ...hold, createdAt: now });
    const held = await this.repository.hold({ recipientDomain: hold.domain }, now);
    return { created, held };
  }

  /** Operator: ends a standing hold; what it held is due now. `removed` false: there was none. */
  async releaseDestination(domain: string) {
    const now = this.deps.clock.now();
    const removed = await this.holds.remove(domain);
    if (!removed) return { removed, released: 0 };
    const released = await this.repository.release({ recipientDomain: domain }, now);
    return { removed, released };
  }

  destinationHolds() {
    return this.holds.list();
  }

  /** Operator commands (`mailroom queue`). */
  hold(filter: QueueFilter) {
    return this.repository.hold(filter, this.deps.clock.now());
  }

  release(filter: QueueFilter) {
    return this.repository.release(filter, this.deps.clock.now());
  }

  retryNow(filter: QueueFilter) {
    return this.repository.retryNow(filter, this.deps.clock.now());
  }

  summary() {
    return this.repository.summary();
  }

  /** Unsettled deliveries by state and lane, for the metrics. */
  queueDepth(): Promise<Array<{ state: string; lane: string; count: number }>> {
    return this.repository.queueDepth();
  }

  /** The due delivery that has waited longest: when it became due (null: nothing is overdue). */
  oldestDue(now: Date): Promise<Date | null> {
    return this.repository.oldestDue(now);
  }

  /** Removes waiting deliveries; each email affected records email.failed for those recipients. */
  async purge(filter: QueueFilter, reason = 'Removed from the queue by the operator'): Promise<number> {
    let purged = 0;
    for (;;) {
      const batch = await this.repository.waiting(filter, 500);
      if (batch.length === 0) return purged;
      for (const delivery of batch) {
        const email = await this.emails.findById(delivery.emailId);
        const removed = await this.deps.knex.transaction(async (trx) => {
          if (!(await new DeliveryRepository(trx).deleteWaiting(delivery.id))) return false;
          if (email)
            await this.deps.emailTransitions.record(trx, email, 'email.failed', { failed: { reason } }, [
              delivery.recipient,
            ]);
          return true;
        });
        if (removed) purged++;
      }
    }
  }
}
