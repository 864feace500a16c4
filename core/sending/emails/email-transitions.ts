import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import type { EventLog } from '../../events/log/event-log.js';
import type { EventType, LoggedEvent } from '../../events/log/event.types.js';
import { emailEventData } from './email-event-data.js';
import type { Email, EmailLastEvent } from './email.types.js';

/** The extra key an event type carries inside `data` (spec: Events), with its fields. */
export type EmailTransitionExtra =
  | { bounce: { type: string; subType: string; message: string; diagnosticCode: string[] } }
  | { open: { ipAddress: string | null; timestamp: string; userAgent: string | null } }
  | { click: { ipAddress: string | null; link: string; timestamp: string; userAgent: string | null } }
  | { failed: { reason: string } }
  | { suppressed: { reason: string; type: string; message: string; diagnosticCode: string[] } }
  | { delay: { type: string; expirationTime: string; delayedRecipients: string[] } }
  | Record<string, never>;

/** One email event of a `recordMany` call. */
export type EmailTransition = {
  email: Email;
  type: EventType & `email.${string}`;
  extra?: EmailTransitionExtra;
  recipients?: string[];
};

/**
 * Every change of an email's state after acceptance goes through here: the event is written to
 * the one events table and the email's `last_event` moves, in the caller's transaction, so the
 * two never disagree.
 */
export class EmailTransitions {
  constructor(private readonly deps: { clock: Clock; events: EventLog }) {}

  async record(
    trx: Knex,
    email: Email,
    type: EventType & `email.${string}`,
    extra: EmailTransitionExtra = {},
    recipients?: string[],
  ): Promise<LoggedEvent> {
    const event = await this.deps.events.record(
      email.teamId,
      type,
      { ...emailEventData(email, recipients), ...extra },
      trx,
    );
    const lastEvent = type.slice('email.'.length) as EmailLastEvent;
    await trx('emails').where({ id: email.id }).update({ last_event: lastEvent, updated_at: event.createdAt });
    return event;
  }

  /**
   * Several email events in the caller's transaction (see EventLog.recordMany); each email's
   * `last_event` ends at its last entry's type, written with one UPDATE per resulting type.
   */
  async recordMany(trx: Knex.Transaction, entries: EmailTransition[]): Promise<LoggedEvent[]> {
    if (entries.length === 0) return [];
    const events = await this.deps.events.recordMany(
      trx,
      entries.map(({ email, type, extra, recipients }) => ({
        teamId: email.teamId,
        type,
        data: { ...emailEventData(email, recipients), ...(extra ?? {}) },
      })),
    );
    const last = new Map<string, EmailLastEvent>();
    for (const { email, type } of entries) last.set(email.id, type.slice('email.'.length) as EmailLastEvent);
    const byState = new Map<EmailLastEvent, string[]>();
    for (const [id, state] of last) byState.set(state, [...(byState.get(state) ?? []), id]);
    for (const [state, ids] of byState)
      await trx('emails').whereIn('id', ids).update({ last_event: state, updated_at: events[0]!.createdAt });
    return events;
  }
}
