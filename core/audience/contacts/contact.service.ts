import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { isConflict, isUniqueViolation } from '../../../db/errors.js';
import { InvalidParameterError, NotFoundError } from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import type { EventLog } from '../../events/log/event-log.js';
import { isEmailAddress } from '../../shared/addresses/email-address.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import type { ConsentChange, ConsentLog } from '../consent/consent-log.js';
import { ConsentRecordRepository } from '../consent/consent-record.repository.js';
import type { ConsentOrigin } from '../consent/consent-record.types.js';
import type { ContactPropertyService } from '../properties/contact-property.service.js';
import { SegmentMemberRepository } from '../segments/segment-member.repository.js';
import type { TopicService } from '../topics/topic.service.js';
import type { Subscription, Topic } from '../topics/topic.types.js';
import { ContactLimit } from './contact-limit.js';
import { ContactTopicsRepository } from './contact-topics.repository.js';
import { ContactRepository } from './contact.repository.js';
import type { CreateContactInput, TopicChoice, UpdateContactInput } from './contact.schemas.js';
import { publicContact } from './contact.shape.js';
import type { Contact, ContactWithProperties } from './contact.types.js';
import { propertyWrites } from './property-values.js';

export type ContactDeps = {
  knex: Knex;
  clock: Clock;
  events: EventLog;
  consent: ConsentLog;
  properties: ContactPropertyService;
  topics: TopicService;
};

/** What a write through the API did: the contact, and whether the address was new. */
export type ContactWrite = { contact: Contact; created: boolean };

/**
 * A team's contacts. An address is unique per team, matched case-insensitively; creating an
 * address that exists updates it (never resubscribing it). Every change of `unsubscribed` and
 * every topic choice writes a consent record in the same transaction, and contact.* events are
 * recorded there too, so a change and its record commit together or not at all.
 */
export class ContactService {
  private readonly limit = new ContactLimit();

  constructor(private readonly deps: ContactDeps) {}

  async create(
    teamId: string,
    contactLimit: number,
    input: CreateContactInput,
    origin: ConsentOrigin,
  ): Promise<ContactWrite> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.deps.knex.transaction((trx) => this.createIn(trx, teamId, contactLimit, input, origin));
      } catch (err) {
        // A concurrent create of the same address won: run again, it is an update now. A
        // deadlock victim (MySQL) runs again too.
        if (!(isUniqueViolation(err) || isConflict(err)) || attempt >= 2) throw err;
      }
    }
  }

  private async createIn(
    trx: Knex.Transaction,
    teamId: string,
    contactLimit: number,
    input: CreateContactInput,
    origin: ConsentOrigin,
  ): Promise<ContactWrite> {
    const repository = new ContactRepository(trx);
    const writes = propertyWrites(input.properties ?? {}, await this.deps.properties.byKey(teamId, trx));
    const topics = await this.deps.topics.requireAll(
      teamId,
      (input.topics ?? []).map((t) => t.id),
      'topics',
      trx,
    );
    const segmentIds = await this.requireSegments(
      trx,
      teamId,
      (input.segments ?? []).map((s) => s.id.toLowerCase()),
    );
    const now = this.deps.clock.now();
    const existing = await repository.findByEmail(teamId, input.email);
    let contact: Contact;
    const consent: ConsentChange[] = [];
    if (existing) {
      contact = {
        ...existing,
        firstName: input.first_name !== undefined ? input.first_name : existing.firstName,
        lastName: input.last_name !== undefined ? input.last_name : existing.lastName,
        // A repeat create never sets it back to false.
        unsubscribed: existing.unsubscribed || input.unsubscribed === true,
        updatedAt: now,
      };
      if (contact.unsubscribed !== existing.unsubscribed) consent.push({ kind: 'unsubscribed', value: 'unsubscribed' });
      await repository.update(contact);
    } else {
      await this.limit.assertRoom(trx, teamId, contactLimit);
      this.limit.created(teamId);
      contact = {
        id: newId(),
        teamId,
        email: input.email,
        firstName: input.first_name ?? null,
        lastName: input.last_name ?? null,
        unsubscribed: input.unsubscribed === true,
        createdAt: now,
        updatedAt: now,
      };
      await repository.insert(contact);
      if (contact.unsubscribed) consent.push({ kind: 'unsubscribed', value: 'unsubscribed' });
    }
    await repository.writeValues(teamId, contact.id, writes, !existing);
    consent.push(...(await this.chooseTopics(trx, contact, topics, input.topics ?? [], !existing)));
    await this.deps.consent.record(trx, contact, consent, origin);
    await new SegmentMemberRepository(trx).add(teamId, contact.id, segmentIds, now);
    await this.recordEvent(trx, existing ? 'contact.updated' : 'contact.created', contact);
    return { contact, created: !existing };
  }

  /** By id or by address; the same 404 for unknown, malformed and another team's. */
  async find(teamId: string, idOrEmail: string, within: Knex = this.deps.knex): Promise<Contact> {
    const value = decodeURIComponent(idOrEmail).trim();
    const repository = new ContactRepository(within);
    const found = isUuid(value)
      ? await repository.findById(teamId, value.toLowerCase())
      : isEmailAddress(value)
        ? await repository.findByEmail(teamId, value)
        : undefined;
    if (!found) throw new NotFoundError('Contact not found');
    return found;
  }

  async get(teamId: string, idOrEmail: string, within: Knex = this.deps.knex): Promise<ContactWithProperties> {
    const contact = await this.find(teamId, idOrEmail, within);
    return { ...contact, properties: await new ContactRepository(within).valuesOf(contact.id) };
  }

  async update(teamId: string, idOrEmail: string, input: UpdateContactInput, origin: ConsentOrigin): Promise<Contact> {
    try {
      return await this.deps.knex.transaction((trx) => this.updateWithin(trx, teamId, idOrEmail, input, origin));
    } catch (err) {
      if (isUniqueViolation(err)) throw emailTaken(input.email ?? '');
      throw err;
    }
  }

  /** `update` inside the caller's transaction (an automation step commits it with its own row). */
  async updateWithin(
    trx: Knex.Transaction,
    teamId: string,
    idOrEmail: string,
    input: UpdateContactInput,
    origin: ConsentOrigin,
  ): Promise<Contact> {
    const repository = new ContactRepository(trx);
    const before = await this.find(teamId, idOrEmail, trx);
    const writes = propertyWrites(input.properties ?? {}, await this.deps.properties.byKey(teamId, trx));
    if (input.email !== undefined && input.email.toLowerCase() !== before.email.toLowerCase()) {
      if (await repository.findByEmail(teamId, input.email)) throw emailTaken(input.email);
    }
    const contact: Contact = {
      ...before,
      email: input.email ?? before.email,
      firstName: input.first_name !== undefined ? input.first_name : before.firstName,
      lastName: input.last_name !== undefined ? input.last_name : before.lastName,
      unsubscribed: input.unsubscribed ?? before.unsubscribed,
      updatedAt: this.deps.clock.now(),
    };
    const valuesBefore = await repository.valuesOf(before.id);
    const changed =
      contact.email !== before.email ||
      contact.firstName !== before.firstName ||
      contact.lastName !== before.lastName ||
      contact.unsubscribed !== before.unsubscribed ||
      writes.length > 0;
    if (!changed) return before;
    await repository.update(contact);
    await repository.writeValues(teamId, contact.id, writes);
    if (contact.unsubscribed !== before.unsubscribed)
      await this.deps.consent.record(
        trx,
        contact,
        [{ kind: 'unsubscribed', value: contact.unsubscribed ? 'unsubscribed' : 'subscribed' }],
        origin,
      );
    const valuesAfter = await repository.valuesOf(contact.id);
    if (!sameContact(before, contact) || JSON.stringify(valuesBefore) !== JSON.stringify(valuesAfter))
      await this.recordEvent(trx, 'contact.updated', contact);
    return contact;
  }

  /**
   * Sets the global opt-out of the team's contact at `address`, if there is one and it is not
   * opted out yet, inside the caller's transaction (a complaint, a one-click unsubscribe); a
   * consent record says where it came from. No contact.updated: not a change through the API.
   */
  async unsubscribeWithin(
    trx: Knex,
    teamId: string,
    address: string,
    origin: ConsentOrigin,
  ): Promise<Contact | undefined> {
    const repository = new ContactRepository(trx);
    const contact = await repository.findByEmail(teamId, address);
    if (!contact || contact.unsubscribed) return contact;
    const updated = { ...contact, unsubscribed: true, updatedAt: this.deps.clock.now() };
    await repository.update(updated);
    await this.deps.consent.record(trx, updated, [{ kind: 'unsubscribed', value: 'unsubscribed' }], origin);
    return updated;
  }

  /** Erasure: personal data gone at once; consent records stay under the address hash. */
  async remove(teamId: string, idOrEmail: string): Promise<ContactWithProperties> {
    return this.deps.knex.transaction(async (trx) => {
      const contact = await this.get(teamId, idOrEmail, trx);
      await new ConsentRecordRepository(trx).detachContact(teamId, contact.id);
      await new ContactRepository(trx).erase(teamId, contact.id);
      await this.deps.events.record(teamId, 'contact.deleted', publicContact(contact), trx);
      return contact;
    });
  }

  /** The contact's consent records, newest first (read-only). */
  async consentRecords(teamId: string, idOrEmail: string, page: PageQuery) {
    const contact = await this.find(teamId, idOrEmail);
    return new ConsentRecordRepository(this.deps.knex).listForContact(teamId, contact.id, page);
  }

  list(teamId: string, page: PageQuery, narrow?: (query: Knex.QueryBuilder) => void) {
    return new ContactRepository(this.deps.knex).list(teamId, page, narrow);
  }

  /** Contacts whose address starts with `prefix` (any case), in address order: the dashboard's search. */
  search(teamId: string, prefix: string, page: PageQuery) {
    return new ContactRepository(this.deps.knex).searchByAddress(teamId, prefix.toLowerCase(), page);
  }

  /** Every live topic with the contact's effective subscription (own choice, else the default). */
  async topicsOf(teamId: string, idOrEmail: string): Promise<Array<{ topic: Topic; subscription: Subscription }>> {
    const contact = await this.find(teamId, idOrEmail);
    const choices = await new ContactTopicsRepository(this.deps.knex).choicesOf(contact.id);
    return (await this.deps.topics.all(teamId)).map((topic) => ({
      topic,
      subscription: choices.get(topic.id) ?? topic.defaultSubscription,
    }));
  }

  /** Records the contact's choices for the topics named; no contact.updated (spec). */
  async setTopics(teamId: string, idOrEmail: string, choices: TopicChoice[], origin: ConsentOrigin): Promise<Contact> {
    return this.deps.knex.transaction((trx) => this.setTopicsWithin(trx, teamId, idOrEmail, choices, origin));
  }

  /** `setTopics` inside the caller's transaction. */
  async setTopicsWithin(
    trx: Knex.Transaction,
    teamId: string,
    idOrEmail: string,
    choices: TopicChoice[],
    origin: ConsentOrigin,
  ): Promise<Contact> {
    const contact = await this.find(teamId, idOrEmail, trx);
    const topics = await this.deps.topics.requireAll(
      teamId,
      choices.map((c) => c.id),
      'topics',
      trx,
    );
    await this.deps.consent.record(trx, contact, await this.chooseTopics(trx, contact, topics, choices), origin);
    return contact;
  }

  /** Explicit membership (a filter match needs none); an unknown segment is 404. */
  async addToSegment(teamId: string, idOrEmail: string, segmentId: string): Promise<Contact> {
    return this.deps.knex.transaction((trx) => this.addToSegmentWithin(trx, teamId, idOrEmail, segmentId));
  }

  /** `addToSegment` inside the caller's transaction. */
  async addToSegmentWithin(trx: Knex.Transaction, teamId: string, idOrEmail: string, segmentId: string) {
    const contact = await this.find(teamId, idOrEmail, trx);
    const members = new SegmentMemberRepository(trx);
    const id = segmentId.toLowerCase();
    if (!isUuid(id) || !(await members.liveSegmentIds(teamId, [id])).has(id))
      throw new NotFoundError('Segment not found');
    await members.add(teamId, contact.id, [id], this.deps.clock.now());
    return contact;
  }

  /** Ends explicit membership; a contact matching the segment's filter stays a member. */
  async removeFromSegment(teamId: string, idOrEmail: string, segmentId: string): Promise<Contact> {
    const contact = await this.find(teamId, idOrEmail);
    const members = new SegmentMemberRepository(this.deps.knex);
    const id = segmentId.toLowerCase();
    if (!isUuid(id) || !(await members.liveSegmentIds(teamId, [id])).has(id))
      throw new NotFoundError('Segment not found');
    await members.remove(contact.id, id);
    return contact;
  }

  private async chooseTopics(
    trx: Knex,
    contact: Contact,
    topics: Topic[],
    choices: TopicChoice[],
    fresh = false,
  ): Promise<ConsentChange[]> {
    if (choices.length === 0) return [];
    const known = new Set(topics.map((t) => t.id));
    // The last choice for a topic named twice wins.
    const byTopic = new Map(
      choices.map((c) => [c.id.toLowerCase(), c.subscription] as const).filter(([id]) => known.has(id)),
    );
    const list = [...byTopic].map(([topicId, subscription]) => ({ topicId, subscription }));
    await new ContactTopicsRepository(trx).setChoices(contact.teamId, contact.id, list, this.deps.clock.now(), fresh);
    return list.map((c) => ({ kind: 'topic' as const, topicId: c.topicId, value: c.subscription }));
  }

  private async requireSegments(trx: Knex, teamId: string, ids: string[]): Promise<string[]> {
    const live = await new SegmentMemberRepository(trx).liveSegmentIds(teamId, ids);
    const missing = ids.flatMap((id, index) => (live.has(id) ? [] : [{ path: `segments[${index}].id`, id }]));
    if (missing.length > 0)
      throw new InvalidParameterError(`Unknown segment: ${missing.map((m) => m.id).join(', ')}`, {
        errors: missing.map((m) => ({ path: m.path, message: 'no such segment' })),
      });
    return ids;
  }

  private async recordEvent(trx: Knex, type: 'contact.created' | 'contact.updated', contact: Contact) {
    const properties = await new ContactRepository(trx).valuesOf(contact.id);
    await this.deps.events.record(contact.teamId, type, publicContact({ ...contact, properties }), trx);
  }
}

const emailTaken = (email: string) =>
  new InvalidParameterError(`The address ${email} belongs to another contact`, {
    errors: [{ path: 'email', message: 'belongs to another contact' }],
  });

function sameContact(a: Contact, b: Contact): boolean {
  return (
    a.email === b.email && a.firstName === b.firstName && a.lastName === b.lastName && a.unsubscribed === b.unsubscribed
  );
}
