import type { Knex } from 'knex';
import type { Clock } from '../../../lib/clock.js';
import { NotFoundError } from '../../../lib/errors.js';
import type { BrandKit } from '../../platform/teams/team.types.js';
import type { ConsentChange, ConsentLog } from '../consent/consent-log.js';
import type { ConsentOrigin } from '../consent/consent-record.types.js';
import { ContactTopicsRepository } from '../contacts/contact-topics.repository.js';
import { ContactRepository } from '../contacts/contact.repository.js';
import type { ContactService } from '../contacts/contact.service.js';
import type { Contact } from '../contacts/contact.types.js';
import type { TopicService } from '../topics/topic.service.js';
import type { Subscription } from '../topics/topic.types.js';
import type { ContactLinks } from './contact-links.js';

export type PageTopic = { id: string; name: string; description: string | null; subscribed: boolean };

/** What the hosted preference page shows. */
export type PreferencePage = {
  contact: Pick<Contact, 'id' | 'email' | 'unsubscribed'>;
  team: { name: string; brandKit: BrandKit };
  topics: PageTopic[];
};

export type LinkTarget = { contact: Contact; team: { name: string; brandKit: BrandKit } };

/** Work done when a broadcast's link unsubscribes its contact, in the unsubscribe's transaction. */
export type BroadcastUnsubscribeListener = (
  trx: Knex,
  subject: { contactId: string; broadcastId: string },
) => Promise<void>;

/** The choices a submitted preference form makes: the global opt-out and each shown topic. */
export type PreferenceChoices = { unsubscribed: boolean; topics: Map<string, boolean> };

/**
 * The pages a recipient reaches from an email without a login: one-click unsubscribe (RFC
 * 8058) and the preference page. The signed token is the only credential; a bad token and an
 * erased contact are the same 404. Changes here write consent records (sources one_click and
 * preference_page) and send no contact.updated (spec).
 */
export class PreferenceService {
  private readonly listeners: BroadcastUnsubscribeListener[] = [];

  constructor(
    private readonly deps: {
      knex: Knex;
      clock: Clock;
      links: ContactLinks;
      contacts: ContactService;
      topics: TopicService;
      consent: ConsentLog;
      team: (teamId: string) => Promise<{ name: string; brandKit: BrandKit }>;
    },
  ) {}

  /** Called when a link from a broadcast's email unsubscribes its contact (the broadcast's results). */
  onBroadcastUnsubscribe(listener: BroadcastUnsubscribeListener): void {
    this.listeners.push(listener);
  }

  /** The contact an unsubscribe link names and its team (for the confirmation page). */
  async unsubscribeTarget(token: string): Promise<LinkTarget> {
    const { contact } = await this.contactOf('unsubscribe', token, this.deps.knex);
    return { contact, team: await this.deps.team(contact.teamId) };
  }

  /** Unsubscribes the contact the link names at once (one-click or the confirmation form). */
  async unsubscribe(token: string, origin: ConsentOrigin): Promise<LinkTarget> {
    const contact = await this.deps.knex.transaction(async (trx) => {
      const { contact: found, broadcastId } = await this.contactOf('unsubscribe', token, trx);
      const updated = (await this.deps.contacts.unsubscribeWithin(trx, found.teamId, found.email, origin)) ?? found;
      if (!found.unsubscribed) await this.unsubscribedBy(trx, found.id, broadcastId);
      return updated;
    });
    return { contact, team: await this.deps.team(contact.teamId) };
  }

  /**
   * A mail to a broadcast's mailto unsubscribe address (RFC 2369) arrived at the inbound MX:
   * the contact it names is unsubscribed in the intake's transaction. False when the address
   * names no contact (forged, or the contact was erased): the mail is then simply dropped.
   */
  async unsubscribeByMail(trx: Knex, localPart: string): Promise<boolean> {
    const subject = this.deps.links.subjectOfLocalPart(localPart);
    const contact = subject ? await new ContactRepository(trx).findAnyTeam(subject.contactId) : undefined;
    if (!contact) return false;
    await this.deps.contacts.unsubscribeWithin(trx, contact.teamId, contact.email, { source: 'mailto' });
    if (!contact.unsubscribed) await this.unsubscribedBy(trx, contact.id, subject!.broadcastId);
    return true;
  }

  preferencesUrl(contactId: string): string {
    return this.deps.links.preferencesUrl(contactId);
  }

  async page(token: string): Promise<PreferencePage> {
    const { contact } = await this.contactOf('preferences', token, this.deps.knex);
    return this.pageOf(contact, this.deps.knex);
  }

  /** Applies a submitted form: only topics the page shows can change; only changes are recorded. */
  async save(token: string, choices: PreferenceChoices, origin: ConsentOrigin): Promise<void> {
    await this.deps.knex.transaction(async (trx) => {
      const { contact, broadcastId } = await this.contactOf('preferences', token, trx);
      const shown = await this.shownTopics(contact, trx);
      const changes: ConsentChange[] = [];
      const topicChanges: Array<{ topicId: string; subscription: Subscription }> = [];
      for (const topic of shown) {
        const wanted = choices.topics.get(topic.id) ?? false;
        if (wanted === topic.subscribed) continue;
        const subscription: Subscription = wanted ? 'opt_in' : 'opt_out';
        topicChanges.push({ topicId: topic.id, subscription });
        changes.push({ kind: 'topic', topicId: topic.id, value: subscription });
      }
      const now = this.deps.clock.now();
      await new ContactTopicsRepository(trx).setChoices(contact.teamId, contact.id, topicChanges, now);
      if (choices.unsubscribed !== contact.unsubscribed) {
        await new ContactRepository(trx).update({ ...contact, unsubscribed: choices.unsubscribed, updatedAt: now });
        changes.push({ kind: 'unsubscribed', value: choices.unsubscribed ? 'unsubscribed' : 'subscribed' });
        if (choices.unsubscribed) await this.unsubscribedBy(trx, contact.id, broadcastId);
      }
      await this.deps.consent.record(trx, contact, changes, origin);
    });
  }

  private async pageOf(contact: Contact, within: Knex): Promise<PreferencePage> {
    return {
      contact: { id: contact.id, email: contact.email, unsubscribed: contact.unsubscribed },
      team: await this.deps.team(contact.teamId),
      topics: await this.shownTopics(contact, within),
    };
  }

  private async shownTopics(contact: Contact, within: Knex): Promise<PageTopic[]> {
    const choices = await new ContactTopicsRepository(within).choicesOf(contact.id);
    return (
      (await this.deps.topics.all(contact.teamId, within))
        .map((topic) => ({ topic, subscription: choices.get(topic.id) ?? topic.defaultSubscription }))
        // Public topics for everyone; a private one only for a contact already opted in.
        .filter(({ topic, subscription }) => topic.visibility === 'public' || subscription === 'opt_in')
        .map(({ topic, subscription }) => ({
          id: topic.id,
          name: topic.name,
          description: topic.description,
          subscribed: subscription === 'opt_in',
        }))
    );
  }

  private async contactOf(
    purpose: 'unsubscribe' | 'preferences',
    token: string,
    within: Knex,
  ): Promise<{ contact: Contact; broadcastId: string | null }> {
    const subject = this.deps.links.subjectOf(purpose, token);
    const contact = subject ? await new ContactRepository(within).findAnyTeam(subject.contactId) : undefined;
    if (!contact) throw new NotFoundError('This link is not valid');
    return { contact, broadcastId: subject!.broadcastId };
  }

  private async unsubscribedBy(trx: Knex, contactId: string, broadcastId: string | null): Promise<void> {
    if (!broadcastId) return;
    for (const listener of this.listeners) await listener(trx, { contactId, broadcastId });
  }
}
