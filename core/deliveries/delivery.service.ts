import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { normalizeEmail } from '../addresses/email-address.js';
import { parseMailbox } from '../addresses/mailbox.js';
import { emailEventData } from '../emails/email-event-data.js';
import type { EmailEvents } from '../emails/email-events.js';
import { EmailRepository } from '../emails/email.repository.js';
import type { Email } from '../emails/email.types.js';
import type { EventService } from '../events/event.service.js';
import type { SuppressionService } from '../suppressions/suppression.service.js';
import { DeliveryRepository } from './delivery.repository.js';
import { EgressBlockRepository } from './egress-block.repository.js';
import type { AttemptRecord, BounceDetails, Delivery, Lane, QueueFilter } from './delivery.types.js';

export type DeliveryServiceDeps = {
  knex: Knex;
  clock: Clock;
  events: EventService;
  emailEvents: EmailEvents;
  suppressions: SuppressionService;
  /** A delivery not done after this long bounces. */
  maxQueueSeconds: number;
};

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

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
  private readonly emails: EmailRepository;

  constructor(private readonly deps: DeliveryServiceDeps) {
    this.repository = new DeliveryRepository(deps.knex);
    this.emails = new EmailRepository(deps.knex);
    this.blocks = new EgressBlockRepository(deps.knex);
  }

  /**
   * queued emails -> deliveries. Each email moves by a conditional update inside the
   * transaction that creates its deliveries, so with several mta processes each email is
   * handed over exactly once. Returns how many emails were handed over.
   */
  async handOver(limit = 200, lane: Lane = 'transactional'): Promise<number> {
    const emails = await this.emails.queuedForHandOver(limit);
    let handed = 0;
    for (const email of emails) {
      const now = this.deps.clock.now();
      const moved = await this.deps.knex.transaction(async (trx) => {
        if (!(await new EmailRepository(trx).markHandedOver(email.id, now))) return false;
        await new DeliveryRepository(trx).insertMany(this.deliveriesOf(email, lane, now));
        await this.deps.events.record(email.teamId, 'email.sent', emailEventData(email), trx);
        return true;
      });
      if (moved) handed++;
    }
    return handed;
  }

  private deliveriesOf(email: Email, lane: Lane, now: Date): Delivery[] {
    const suppressed = new Set(email.suppressedRecipients.map(normalizeEmail));
    const recipients = new Map<string, string>();
    for (const value of [...email.to, ...(email.cc ?? []), ...(email.bcc ?? [])]) {
      // The one strict parser, as at acceptance: the envelope is built from its output.
      const address = parseMailbox(value)!.address;
      const key = normalizeEmail(address);
      if (!suppressed.has(key) && !recipients.has(key)) recipients.set(key, address);
    }
    const expiresAt = new Date(now.getTime() + this.deps.maxQueueSeconds * 1000);
    return [...recipients.values()].map((recipient) => ({
      id: newId(),
      emailId: email.id,
      teamId: email.teamId,
      domainId: email.domainId,
      recipient,
      recipientDomain: domainOf(recipient),
      lane,
      state: 'queued',
      attempts: 0,
      nextAttemptAt: now,
      leaseOwner: null,
      leaseUntil: null,
      egressIp: null,
      lastReply: null,
      delayNotified: false,
      expiresAt,
      createdAt: now,
      updatedAt: now,
    }));
  }

  async claim(lane: Lane, limit: number, token: string, leaseMs: number): Promise<Delivery[]> {
    const now = this.deps.clock.now();
    return this.repository.claim(lane, limit, token, now, new Date(now.getTime() + leaseMs));
  }

  async email(id: string): Promise<Email | undefined> {
    return this.emails.findById(id);
  }

  /** The recipients' server accepted: email.delivered for them. */
  async delivered(email: Email, group: Delivery[], attempt: AttemptRecord): Promise<Delivery[]> {
    return this.settle(group, attempt, 'delivered', { state: 'delivered' }, async (trx, settled) => {
      await this.deps.emailEvents.record(trx, email, 'email.delivered', {}, settled.map((d) => d.recipient));
    });
  }

  /**
   * A temporary failure: retried at `nextAttemptAt`. The first deferral of a delivery announces
   * email.delivery_delayed; later ones are quiet.
   */
  async deferred(email: Email, group: Delivery[], attempt: AttemptRecord, nextAttemptAt: Date, delayType: string): Promise<Delivery[]> {
    return this.settle(group, attempt, 'deferred', { state: 'deferred', next_attempt_at: nextAttemptAt }, async (trx, settled) => {
      const first = settled.filter((d) => !d.delayNotified);
      if (first.length === 0) return;
      await trx('deliveries').whereIn('id', first.map((d) => d.id)).update({ delay_notified: true });
      const recipients = first.map((d) => d.recipient);
      const expirationTime = new Date(Math.min(...first.map((d) => d.expiresAt.getTime()))).toISOString();
      await this.deps.emailEvents.record(trx, email, 'email.delivery_delayed', { delay: { type: delayType, expirationTime, delayedRecipients: recipients } }, recipients);
    });
  }

  /** A permanent failure (or expiry): email.bounced; a hard bounce suppresses the recipient. */
  async bounced(email: Email, group: Delivery[], attempt: AttemptRecord, bounce: BounceDetails, hard: boolean): Promise<Delivery[]> {
    const settled = await this.settle(group, attempt, 'bounced', { state: 'bounced' }, async (trx, rows) => {
      await this.deps.emailEvents.record(trx, email, 'email.bounced', { bounce }, rows.map((d) => d.recipient));
    });
    if (hard && settled.length > 0) await this.deps.suppressions.addMany(email.teamId, settled.map((d) => d.recipient), 'bounce', email.id);
    return settled;
  }

  /** The recipient's server accepted and the recipient then complained (the simulator's complained@). */
  async complained(email: Email, group: Delivery[], attempt: AttemptRecord): Promise<Delivery[]> {
    return this.settle(group, attempt, 'delivered', { state: 'delivered' }, async (trx, settled) => {
      const recipients = settled.map((d) => d.recipient);
      await this.deps.emailEvents.record(trx, email, 'email.delivered', {}, recipients);
      await this.deps.emailEvents.record(trx, email, 'email.complained', {}, recipients);
    });
  }

  /** Not sent because the recipient is suppressed (the simulator's suppressed@). */
  async suppressed(email: Email, group: Delivery[], attempt: AttemptRecord, message: string): Promise<Delivery[]> {
    return this.settle(group, attempt, 'bounced', { state: 'suppressed' }, async (trx, settled) => {
      const recipients = settled.map((d) => d.recipient);
      await this.deps.emailEvents.record(trx, email, 'email.suppressed', { suppressed: { reason: 'suppressed', type: 'suppression_list', message, diagnosticCode: [] } }, recipients);
    });
  }

  /** The email cannot be sent at all (its domain or stored message is gone): email.failed. */
  async failed(email: Email, group: Delivery[], attempt: AttemptRecord, reason: string): Promise<Delivery[]> {
    return this.settle(group, attempt, 'bounced', { state: 'failed' }, async (trx, settled) => {
      await this.deps.emailEvents.record(trx, email, 'email.failed', { failed: { reason } }, settled.map((d) => d.recipient));
    });
  }

  private async settle(
    group: Delivery[],
    attempt: AttemptRecord,
    outcome: 'delivered' | 'deferred' | 'bounced',
    changes: Record<string, unknown>,
    announce: (trx: Knex.Transaction, settled: Delivery[]) => Promise<void>,
  ): Promise<Delivery[]> {
    const now = this.deps.clock.now();
    return this.deps.knex.transaction(async (trx) => {
      const repository = new DeliveryRepository(trx);
      const settled: Delivery[] = [];
      for (const delivery of group) {
        const row = { ...changes, attempts: delivery.attempts + 1, egress_ip: attempt.egressIp, last_reply: attempt.reply, updated_at: now };
        if (!(await repository.settle(delivery, row))) continue;
        await repository.insertAttempt(delivery, outcome, attempt, now);
        settled.push(delivery);
      }
      if (settled.length > 0) await announce(trx, settled);
      return settled;
    });
  }

  /** A blocklisting-style rejection of `egressIp` by `destination` (see EgressBlockRepository). */
  async strikeEgress(egressIp: string, destination: string, reply: string, threshold: number, restSeconds: number): Promise<void> {
    const now = this.deps.clock.now();
    await this.blocks.strike(egressIp, destination, reply, threshold, new Date(now.getTime() + restSeconds * 1000), now);
  }

  restingEgress(destination: string): Promise<Set<string>> {
    return this.blocks.resting(destination, this.deps.clock.now());
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
          if (email) await this.deps.emailEvents.record(trx, email, 'email.failed', { failed: { reason } }, [delivery.recipient]);
          return true;
        });
        if (removed) purged++;
      }
    }
  }
}
