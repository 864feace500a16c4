import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { newId } from '../../../lib/ids.js';
import { normalizeEmail } from '../../shared/addresses/email-address.js';
import { parseMailbox } from '../../shared/addresses/mailbox.js';
import { emailEventData } from '../emails/email-event-data.js';
import { EmailRepository } from '../emails/email.repository.js';
import type { Email } from '../emails/email.types.js';
import type { EventLog } from '../../events/log/event-log.js';
import { DeliveryRepository } from './delivery.repository.js';
import { DestinationHoldRepository } from './destination-hold.repository.js';
import type { Delivery, Lane } from './delivery.types.js';
import { takeQueuedEmails } from './hand-over.js';

/**
 * Deliveries the handing-over worker keeps for itself: created `sending` under its lease, as
 * a claim would leave them, up to `room` of them (whole emails only).
 */
export type HandOverTake = { token: string; leaseMs: number; room: number };

export type HandOverResult = { handed: number; taken: Array<{ email: Email; deliveries: Delivery[] }> };

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/**
 * queued emails -> deliveries, `limit` at a time in one transaction: each email moves from
 * queued to sent (once, even with several mta processes: see takeQueuedEmails), its deliveries
 * are inserted and email.sent recorded. If that transaction fails, the emails are retried one
 * per transaction so one bad email cannot hold up the rest.
 *
 * With `take`, a worker with free slots creates the deliveries it has room for already leased
 * to itself and gets them back to deliver: fresh mail then costs no claim (no scan of the
 * queue, no second write of each row), which is most of the queue's traffic. Its lease works
 * as a claim's does: if the worker dies, another takes the deliveries back when it runs out.
 */
export class HandOverService {
  private readonly emails: EmailRepository;

  constructor(private readonly deps: { knex: Knex; clock: Clock; events: EventLog; maxQueueSeconds: number }) {
    this.emails = new EmailRepository(deps.knex);
  }

  async handOver(limit: number, lane: Lane, take?: HandOverTake): Promise<HandOverResult> {
    const emails = await this.emails.queuedForHandOver(limit);
    if (emails.length === 0) return { handed: 0, taken: [] };
    try {
      return await this.together(emails, lane, take);
    } catch (err) {
      if (emails.length === 1) throw err;
    }
    const result: HandOverResult = { handed: 0, taken: [] };
    let failure: unknown = null;
    let room = take?.room ?? 0;
    for (const email of emails) {
      try {
        const one = await this.together([email], lane, take ? { ...take, room } : undefined);
        result.handed += one.handed;
        result.taken.push(...one.taken);
        room -= one.taken.reduce((sum, entry) => sum + entry.deliveries.length, 0);
      } catch (err) {
        failure ??= err;
      }
    }
    if (failure && result.handed === 0) throw failure;
    return result;
  }

  private together(emails: Email[], lane: Lane, take: HandOverTake | undefined): Promise<HandOverResult> {
    const now = this.deps.clock.now();
    return this.deps.knex.transaction(async (trx) => {
      const moved = new Set(
        await takeQueuedEmails(
          trx,
          emails.map((email) => email.id),
          now,
        ),
      );
      const handed = emails
        .filter((email) => moved.has(email.id))
        .map((email) => ({ email, deliveries: this.deliveriesOf(email, lane, now) }));
      await this.markHeldDestinations(trx, handed);
      const taken = take ? this.lease(handed, take, now) : [];
      await new DeliveryRepository(trx).insertMany(handed.flatMap((entry) => entry.deliveries));
      await this.deps.events.recordMany(
        trx,
        handed.map(({ email }) => ({ teamId: email.teamId, type: 'email.sent' as const, data: emailEventData(email) })),
      );
      return { handed: handed.length, taken };
    });
  }

  /** Deliveries to a domain an operator holds start `held` (see DeliveryService.holdDestination). */
  private async markHeldDestinations(trx: Knex.Transaction, handed: Array<{ deliveries: Delivery[] }>) {
    const held = await new DestinationHoldRepository(trx).heldAmong(
      handed.flatMap((entry) => entry.deliveries.map((d) => d.recipientDomain)),
    );
    if (held.size === 0) return;
    for (const entry of handed)
      entry.deliveries = entry.deliveries.map((d) => (held.has(d.recipientDomain) ? { ...d, state: 'held' } : d));
  }

  /** Marks the deliveries of the first emails that fit in the room as claimed by `take.token`. */
  private lease(handed: Array<{ email: Email; deliveries: Delivery[] }>, take: HandOverTake, now: Date) {
    const leaseUntil = new Date(now.getTime() + take.leaseMs);
    const taken: Array<{ email: Email; deliveries: Delivery[] }> = [];
    let room = take.room;
    for (const entry of handed) {
      if (entry.deliveries.length === 0 || entry.deliveries.length > room) continue;
      if (entry.deliveries.some((d) => d.state === 'held')) continue; // the rest go through a claim

      room -= entry.deliveries.length;
      // While a row is `sending`, next_attempt_at holds its lease expiry (see DeliveryRepository.claim).
      entry.deliveries = entry.deliveries.map((d) => ({
        ...d,
        state: 'sending',
        leaseOwner: take.token,
        leaseUntil,
        nextAttemptAt: leaseUntil,
      }));
      taken.push(entry);
    }
    return taken;
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
      // A broadcast's mail takes the bulk lane, whatever lane handed it over.
      lane: email.broadcastId ? 'bulk' : lane,
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
}
