import { DeliveryRepository } from '../../core/sending/deliveries/delivery.repository.js';
import type { Delivery, DeliveryState } from '../../core/sending/deliveries/delivery.types.js';
import { EmailRepository } from '../../core/sending/emails/email.repository.js';
import type { Email } from '../../core/sending/emails/email.types.js';
import type { Runtime } from '../../app/runtime.js';
import { newId } from '../../lib/ids.js';

/**
 * Emails and deliveries written straight through the repositories, so queue commands and
 * retention are tested on exact states and ages without running the send path and the MTA.
 */
export async function insertEmail(
  runtime: Runtime,
  teamId: string,
  to: string[],
  createdAt = new Date(),
): Promise<Email> {
  const email: Email = {
    id: newId(),
    teamId,
    domainId: newId(),
    apiKeyId: null,
    fromHeader: 'Sender <hello@sender.test>',
    fromAddress: 'hello@sender.test',
    to,
    cc: null,
    bcc: null,
    replyTo: null,
    suppressedRecipients: [],
    subject: 'Queued',
    tags: null,
    headers: null,
    templateId: null,
    templateVersionId: null,
    topicId: null,
    broadcastId: null,
    messageId: `<${newId()}@sender.test>`,
    lastEvent: 'sent',
    scheduledAt: null,
    sizeBytes: 100,
    spool: { segment: 'seg-test', offset: 0, length: 100 },
    createdAt,
    updatedAt: createdAt,
  };
  await new EmailRepository(runtime.db.knex).insert(email);
  return email;
}

export type DeliveryShape = { state?: DeliveryState; createdAt?: Date; nextAttemptAt?: Date; attempts?: number };

/** One delivery per recipient of `email`, all in the given state. */
export async function insertDeliveries(runtime: Runtime, email: Email, shape: DeliveryShape = {}): Promise<Delivery[]> {
  const createdAt = shape.createdAt ?? new Date();
  const deliveries: Delivery[] = email.to.map((recipient) => ({
    id: newId(),
    emailId: email.id,
    teamId: email.teamId,
    domainId: email.domainId,
    recipient,
    recipientDomain: recipient.slice(recipient.indexOf('@') + 1).toLowerCase(),
    lane: 'transactional',
    state: shape.state ?? 'queued',
    attempts: shape.attempts ?? 0,
    nextAttemptAt: shape.nextAttemptAt ?? createdAt,
    leaseOwner: null,
    leaseUntil: null,
    egressIp: null,
    lastReply: null,
    delayNotified: false,
    expiresAt: new Date(createdAt.getTime() + 3 * 86_400_000),
    createdAt,
    updatedAt: createdAt,
  }));
  await new DeliveryRepository(runtime.db.knex).insertMany(deliveries);
  return deliveries;
}

/** Recorded attempts of a delivery (as a worker would leave them), `createdAt` back-dated if given. */
export async function insertAttempt(
  runtime: Runtime,
  delivery: Delivery,
  outcome: 'delivered' | 'deferred' | 'bounced',
  reply: string,
  createdAt = new Date(),
): Promise<void> {
  const attempt = {
    egressIp: '127.0.0.2',
    mxHost: 'mx.example.test',
    reply,
    transcript: `S: 220 mx.example.test\nC: EHLO out\nS: ${reply}`,
    durationMs: 12,
  };
  await new DeliveryRepository(runtime.db.knex).insertAttempt(delivery, outcome, attempt, createdAt);
}
