import { createHash } from 'node:crypto';
import { normalizeEmail } from '../../shared/addresses/email-address.js';
import { parseMailbox } from '../../shared/addresses/mailbox.js';
import { isUuid } from '../../../lib/ids.js';
import type { CountMetric } from './metric.types.js';

/** An event as the roll-up reads it. */
export type RollupEvent = { id: string; teamId: string; type: string; createdAt: Date; data: Record<string, unknown> };

/** What the roll-up knows of the email an event is about. */
export type EmailFacts = { domainId: string; broadcastId: string; recipients: number };

/**
 * One event's contribution. `once` counts only the first time its key is seen (a first-seen
 * row remembers it): unique opens and clicks per (email, recipient), attempted per email.
 */
export type Contribution = {
  counts: Partial<Record<CountMetric, number>>;
  once: Array<{ key: string; metric: CountMetric }>;
};

/** The email an event is about; '' when it names none (or nothing that could be an email id). */
export function emailIdOf(event: RollupEvent): string {
  const id = event.data.email_id;
  return typeof id === 'string' && isUuid(id) ? id.toLowerCase() : '';
}

const BOUNCE_TYPES: Record<string, CountMetric> = { Permanent: 'bounced_permanent', Transient: 'bounced_transient' };

const recipientsOf = (data: Record<string, unknown>): string[] =>
  Array.isArray(data.to) ? data.to.filter((to): to is string => typeof to === 'string') : [];

/** The first-seen key: a hash, so a long recipient list still fits a fixed-width primary key. */
export function onceKey(kind: string, emailId: string, recipient = ''): string {
  return createHash('sha256').update(`${kind}\n${emailId}\n${recipient}`).digest('hex');
}

/**
 * Who an open or click is from. The pixel and links are per message, not per recipient, so the
 * message's `to` list as a whole is the recipient (one address for a message to one person).
 */
const engagedRecipient = (data: Record<string, unknown>) => recipientsOf(data).map(normalizeEmail).sort().join(',');

/**
 * Counts per event type. Per-recipient events (delivered, bounced, complained, suppressed,
 * failed, delivery_delayed) count each recipient they are about; `sent` counts the recipients
 * the email was handed to the MTA for; opens and clicks count each event.
 */
export function contributionOf(event: RollupEvent, email: EmailFacts | undefined): Contribution {
  const emailId = emailIdOf(event);
  // Every email.* event names its email (spec: Events); one that does not is unreadable. A
  // webhook test event (`test: true`, POST /webhooks/{id}/test) names a made-up email: not mail.
  if (!emailId || event.data.test === true) return { counts: {}, once: [] };
  const recipients = Math.max(1, recipientsOf(event.data).length);
  const attempted = { key: onceKey('attempted', emailId), metric: 'attempted' as const };
  switch (event.type) {
    case 'email.sent':
      return { counts: { sent: email ? email.recipients : recipients }, once: [attempted] };
    case 'email.suppressed':
      return { counts: { suppressed: recipients }, once: [attempted] };
    case 'email.failed':
      return { counts: { failed: recipients }, once: [attempted] };
    case 'email.delivered':
      return { counts: { delivered: recipients }, once: [] };
    case 'email.complained':
      return { counts: { complained: recipients }, once: [] };
    case 'email.delivery_delayed':
      return { counts: { delivery_delayed: recipients }, once: [] };
    case 'email.bounced': {
      const type = (event.data.bounce as { type?: unknown } | undefined)?.type;
      const kind = BOUNCE_TYPES[typeof type === 'string' ? type : ''] ?? 'bounced_undetermined';
      return { counts: { bounced: recipients, [kind]: recipients }, once: [] };
    }
    case 'email.opened':
      return {
        counts: { opened: 1 },
        once: [{ key: onceKey('opened', emailId, engagedRecipient(event.data)), metric: 'unique_opened' }],
      };
    case 'email.clicked':
      return {
        counts: { clicked: 1 },
        once: [{ key: onceKey('clicked', emailId, engagedRecipient(event.data)), metric: 'unique_clicked' }],
      };
    case 'email.received':
      return { counts: { received: 1 }, once: [] };
    default:
      return { counts: {}, once: [] };
  }
}

/**
 * How many recipients an accepted email was handed over for: its to, cc and bcc, each address
 * once, less those skipped as suppressed at acceptance (as the MTA builds its deliveries).
 */
export function handedOverRecipients(addresses: string[], suppressed: string[]): number {
  const skipped = new Set(suppressed.map(normalizeEmail));
  const keys = new Set<string>();
  for (const value of addresses) {
    const address = parseMailbox(value)?.address;
    if (!address) continue;
    const key = normalizeEmail(address);
    if (!skipped.has(key)) keys.add(key);
  }
  return keys.size;
}
