import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { newId } from '../../../lib/ids.js';
import type { ConsentChange } from '../../audience/consent/consent-log.js';
import { EventOccurrenceRepository, type OccurrenceWrite } from '../../custom-events/event-occurrence.repository.js';
import type { EventFanOut } from '../../events/log/event-log.js';
import type { LoggedEvent } from '../../events/log/event.types.js';
import { normalizeEmail } from '../../shared/addresses/email-address.js';
import { bindingFires, type PlatformTriggerIndex } from './platform-trigger-index.js';

/** `Name <address>` or a bare address: the address. */
const addressOf = (value: string) => (/<([^>]+)>\s*$/.exec(value)?.[1] ?? value).trim();

/**
 * Turns platform happenings into occurrences of svc: events, in the transaction that records
 * them, for teams with an enabled automation on that trigger (nothing is written otherwise):
 * contact.created and every email.* event of the event log (one occurrence per recipient that
 * is a contact of the team), and topic opt-ins from the consent log. The run engine enrols
 * from them as from sent custom events. svc:segment.entered comes from SegmentEntryWatch.
 */
export class PlatformOccurrences implements EventFanOut {
  constructor(private readonly deps: { clock: Clock; index: PlatformTriggerIndex }) {}

  async enqueueMany(trx: Knex, events: LoggedEvent[]): Promise<void> {
    const writes: OccurrenceWrite[] = [];
    for (const event of events) {
      if (event.type !== 'contact.created' && !event.type.startsWith('email.')) continue;
      const name = `svc:${event.type}`;
      const bindings = await this.deps.index.of(trx, event.teamId);
      if (!bindings.some((b) => bindingFires(b, name, null))) continue;
      if (event.type === 'contact.created') {
        if (typeof event.data.id === 'string') writes.push(this.occurrence(event.teamId, name, event.data.id, {}));
        continue;
      }
      const to = Array.isArray(event.data.to) ? event.data.to.filter((a): a is string => typeof a === 'string') : [];
      if (to.length === 0) continue;
      const contacts = (await trx('contacts')
        .where({ team_id: event.teamId })
        .whereIn('email_normalized', [...new Set(to.map((a) => normalizeEmail(addressOf(a))))])
        .select('id', 'email')) as Array<{ id: string; email: string }>;
      for (const contact of contacts)
        writes.push(
          this.occurrence(event.teamId, name, contact.id, { email_id: event.data.email_id, to: contact.email }),
        );
    }
    if (writes.length > 0) await new EventOccurrenceRepository(trx).insertMany(writes);
  }

  /** A consent change: each topic opt-in is an occurrence of svc:topic.subscribed naming its topic. */
  async consentChanged(trx: Knex, contact: { teamId: string; id: string }, changes: ConsentChange[]): Promise<void> {
    const optIns = changes.filter((c) => c.kind === 'topic' && c.value === 'opt_in');
    if (optIns.length === 0) return;
    const bindings = await this.deps.index.of(trx, contact.teamId);
    const writes = optIns
      .map((c) => (c.kind === 'topic' ? c.topicId : ''))
      .filter((topicId) => bindings.some((b) => bindingFires(b, 'svc:topic.subscribed', topicId)))
      .map((topicId) => this.occurrence(contact.teamId, 'svc:topic.subscribed', contact.id, { topic_id: topicId }));
    if (writes.length > 0) await new EventOccurrenceRepository(trx).insertMany(writes);
  }

  occurrence(teamId: string, eventName: string, contactId: string, payload: Record<string, unknown>): OccurrenceWrite {
    return {
      id: newId(),
      teamId,
      definitionId: null,
      eventName,
      contactId,
      payloadJson: JSON.stringify(payload),
      createdAt: this.deps.clock.now(),
    };
  }
}
