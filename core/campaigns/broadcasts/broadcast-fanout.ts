import type { Knex } from 'knex';
import type { UnitsOfWork } from '../../../db/unit-of-work.js';
import type { Clock } from '../../../lib/clock.js';
import { crashPoint } from '../../../lib/crash-point.js';
import type { ContactPropertyService } from '../../audience/properties/contact-property.service.js';
import type { ContactLinks } from '../../audience/preferences/contact-links.js';
import type { SegmentService } from '../../audience/segments/segment.service.js';
import type { TopicService } from '../../audience/topics/topic.service.js';
import type { Team } from '../../platform/teams/team.types.js';
import { normalizeEmail } from '../../shared/addresses/email-address.js';
import type { EmailAcceptance } from '../../sending/emails/email-acceptance.js';
import type { SuppressionService } from '../../sending/suppressions/suppression.service.js';
import { renderForRecipient } from './broadcast-message.js';
import { fallbackValues, recipientLinks, unsubscribeMailHost } from './recipient-context.js';
import { BroadcastRepository } from './broadcast.repository.js';
import type { Broadcast, Exclusion } from './broadcast.types.js';
import { RecipientPageRepository, type RecipientRow } from './recipient-page.repository.js';

export type FanOutDeps = {
  knex: Knex;
  clock: Clock;
  units: UnitsOfWork;
  team: (teamId: string) => Promise<Team>;
  segments: SegmentService;
  properties: ContactPropertyService;
  topics: TopicService;
  suppressions: SuppressionService;
  acceptance: EmailAcceptance;
  links: ContactLinks;
  /** `<return-path label>.<domain>` of the team's verified domain `name`, where its bounces come back. */
  returnPathHost: (teamId: string, domainName: string) => Promise<string | null>;
  pageSize: number;
  /** Paused platform-wide: sending broadcasts hold at their next page until resumed. */
  marketingEnabled: () => Promise<boolean>;
};

/** What every page of one broadcast's fan-out shares. */
type PageContext = {
  team: Team;
  fallbacks: Map<string, string>;
  topicDefault: 'opt_in' | 'opt_out' | undefined;
  /** Where the mailto unsubscribe address lives (the from domain's return-path host). */
  mailHost: string | null;
};

/**
 * Turns queued and due broadcasts into one ordinary email per recipient (scheduler). Members are
 * walked in contact-id order in pages; each page's emails, its recipient rows (the email, or
 * why there is none) and the broadcast's cursor commit in one unit of work, so a scheduler
 * killed anywhere resumes after the last committed page and nobody gets a second email (the
 * (broadcast, contact) key is the claim besides). A cancel is seen at the next page.
 */
export class BroadcastFanOut {
  private readonly broadcasts: BroadcastRepository;
  private readonly pages: RecipientPageRepository;

  constructor(private readonly deps: FanOutDeps) {
    this.broadcasts = new BroadcastRepository(deps.knex);
    this.pages = new RecipientPageRepository(deps.knex);
  }

  /**
   * Works due broadcasts page by page until each ends (sent or canceled) or `budgetMs` is spent;
   * a broadcast left mid-way continues at the next run, after its cursor.
   */
  async runDue(budgetMs = 240_000, limit = 20): Promise<{ broadcasts: number; emails: number }> {
    const deadline = Date.now() + budgetMs;
    const ids = await this.broadcasts.dueIds(this.deps.clock.now(), limit);
    let emails = 0;
    for (const id of ids) {
      if (Date.now() > deadline) break;
      emails += await this.fanOut(id, { deadline });
    }
    return { broadcasts: ids.length, emails };
  }

  /** One broadcast, until it ends, `deadline` (epoch ms) passes or `pages` pages are done. */
  async fanOut(id: string, limits: { deadline?: number; pages?: number } = {}): Promise<number> {
    const deadline = limits.deadline ?? Number.POSITIVE_INFINITY;
    let pagesLeft = limits.pages ?? Number.POSITIVE_INFINITY;
    if (!(await this.deps.marketingEnabled())) return 0;
    let broadcast = await this.broadcasts.findForFanOut(id);
    if (!broadcast) return 0;
    if (broadcast.status === 'scheduled' || broadcast.status === 'queued') {
      const moved = await this.broadcasts.transition(id, ['scheduled', 'queued'], {
        status: 'sending',
        updated_at: this.deps.clock.now(),
      });
      if (!moved) return 0;
      broadcast = { ...broadcast, status: 'sending' };
    }
    if (broadcast.status !== 'sending') return 0;
    const team = await this.deps.team(broadcast.teamId);
    const segment = broadcast.segmentId
      ? await this.deps.segments.findForSending(team.id, broadcast.segmentId)
      : undefined;
    if (team.riskState === 'suspended' || !segment) {
      await this.fail(broadcast, team.riskState === 'suspended' ? 'The team cannot send email' : 'No segment');
      return 0;
    }
    const narrow = await this.deps.segments.membership(segment);
    const fallbacks = await fallbackValues(this.deps.properties, team.id);
    const topicDefault = broadcast.topicId
      ? (await this.deps.topics.defaultsOf(team.id)).find((t) => t.id === broadcast!.topicId)?.defaultSubscription
      : undefined;
    const mailHost = await unsubscribeMailHost(broadcast.from, (name) => this.deps.returnPathHost(team.id, name));
    let created = 0;
    while (Date.now() <= deadline && pagesLeft-- > 0) {
      const current = await this.broadcasts.findForFanOut(id);
      if (!current || current.status !== 'sending') return created; // canceled: stop at this page
      if (!(await this.deps.marketingEnabled())) return created; // paused: continue when resumed
      const members = await this.pages.members(team.id, narrow, current.cursor, this.deps.pageSize);
      if (members.length === 0) {
        const now = this.deps.clock.now();
        await this.broadcasts.transition(id, ['sending'], { status: 'sent', sent_at: now, updated_at: now });
        return created;
      }
      created += await this.page(current, members, { team, fallbacks, topicDefault, mailHost });
    }
    return created;
  }

  private async page(
    broadcast: Broadcast,
    members: Awaited<ReturnType<RecipientPageRepository['members']>>,
    context: PageContext,
  ): Promise<number> {
    const { team, fallbacks, topicDefault, mailHost } = context;
    const ids = members.map((c) => c.id);
    const [values, suppressed, optedOut] = await Promise.all([
      this.pages.values(ids),
      this.deps.suppressions.suppressedAmong(
        team.id,
        members.map((c) => c.email),
      ),
      this.topicOptOuts(ids, broadcast.topicId, topicDefault),
    ]);
    const rows: RecipientRow[] = [];
    const sending: Array<{ row: RecipientRow; contact: (typeof members)[number] }> = [];
    for (const contact of members) {
      const excluded: Exclusion | null = contact.unsubscribed
        ? 'unsubscribed'
        : optedOut.has(contact.id)
          ? 'topic_opt_out'
          : suppressed.has(normalizeEmail(contact.email))
            ? 'suppressed'
            : null;
      const row: RecipientRow = { contactId: contact.id, email: contact.email, emailId: null, excluded };
      rows.push(row);
      if (!excluded) sending.push({ row, contact });
    }
    const inputs = sending.map(({ contact }) => {
      const message = renderForRecipient(
        broadcast,
        contact,
        values.get(contact.id) ?? new Map(),
        fallbacks,
        recipientLinks(this.deps.links, contact.id, broadcast.id, mailHost),
        team.postalAddress,
        team.brandKit,
      );
      return {
        from: broadcast.from!,
        to: [contact.email],
        reply_to: broadcast.replyTo.length > 0 ? broadcast.replyTo : undefined,
        subject: message.subject,
        html: message.html,
        text: message.text,
        headers: message.headers,
        topic_id: broadcast.topicId ?? undefined,
      };
    });
    const now = this.deps.clock.now();
    const created = await this.deps.units.run(async (unit) => {
      const { emails, refused } = await this.deps.acceptance.acceptForBroadcast(team, broadcast.id, inputs, unit);
      sending.forEach(({ row }, index) => {
        if (refused.has(index)) row.excluded = 'refused';
        else row.emailId = emails[index]!.id;
      });
      unit.write(
        `broadcast-recipients:${broadcast.id}`,
        rows,
        RecipientPageRepository.writer(broadcast.id, team.id, now),
      );
      crashPoint('broadcast.before-page-commit');
      return emails.filter(Boolean).length;
    });
    crashPoint('broadcast.after-page-commit');
    return created;
  }

  /** Contacts of the page whose effective subscription to the broadcast's topic is opt_out. */
  private async topicOptOuts(
    ids: string[],
    topicId: string | null,
    topicDefault: 'opt_in' | 'opt_out' | undefined,
  ): Promise<Set<string>> {
    if (!topicId) return new Set();
    if (topicDefault === 'opt_in') return this.pages.choosing(ids, topicId, 'opt_out');
    const optedIn = await this.pages.choosing(ids, topicId, 'opt_in');
    return new Set(ids.filter((id) => !optedIn.has(id)));
  }

  private async fail(broadcast: Broadcast, reason: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.broadcasts.transition(broadcast.id, ['sending', 'queued', 'scheduled'], {
      status: 'failed',
      failure_reason: reason,
      updated_at: now,
    });
  }
}
