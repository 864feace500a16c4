import { emailEventData } from '../../core/sending/emails/email-event-data.js';
import type { Email } from '../../core/sending/emails/email.types.js';
import { EventLog } from '../../core/events/log/event-log.js';
import type { EventType } from '../../core/events/log/event.types.js';
import type { Runtime } from '../../app/runtime.js';
import { insertEmail } from './queue-rows.js';

/**
 * Emails and email events written with chosen times, for metric tests: the roll-up buckets an
 * event by its created_at, so a fixed clock puts it in the minute, hour or day a test wants.
 */
export async function metricEmail(
  runtime: Runtime,
  teamId: string,
  domainId: string,
  to: string[],
  extra: { cc?: string[]; suppressed?: string[] } = {},
): Promise<Email> {
  const email = await insertEmail(runtime, teamId, to);
  await runtime.db
    .knex('emails')
    .where({ id: email.id })
    .update({
      domain_id: domainId,
      cc_addresses: extra.cc ? JSON.stringify(extra.cc) : null,
      suppressed_recipients: JSON.stringify(extra.suppressed ?? []),
    });
  return { ...email, domainId, cc: extra.cc ?? null, suppressedRecipients: extra.suppressed ?? [] };
}

/** Records an email.* event as if it happened at `at` (about `to`, default the email's to). */
export async function eventAt(
  runtime: Runtime,
  at: string | Date,
  email: Email,
  type: EventType,
  options: { to?: string[]; extra?: Record<string, unknown> } = {},
): Promise<void> {
  const events = new EventLog({ knex: runtime.db.knex, clock: { now: () => new Date(at) } });
  await events.record(email.teamId, type, { ...emailEventData(email, options.to), ...options.extra });
}

export const bounce = (type: string) => ({
  bounce: { type, subType: 'General', message: 'refused', diagnosticCode: ['550 5.1.1 no such user'] },
});
