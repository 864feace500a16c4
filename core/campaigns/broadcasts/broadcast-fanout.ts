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
import { BroadcastMime } from './broadcast-mime.js';
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
  /** 2: the next page is read and rendered while one commits; 1: one page at a time (default 2). */
  pagesInFlight?: number;
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
  /** The broadcast's MIME, composed once and rendered per recipient (broadcast-mime.ts). */
  mime: BroadcastMime;
  /** Narrows a contacts query to the segment's members. */
  narrow: (query: Knex.QueryBuilder) => void;
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

  /** Whether a broadcast is waiting for its fan-out (the scheduler's watcher asks every quarter second). */
  async hasDue(): Promise<boolean> {
    return (await this.broadcasts.dueIds(this.deps.clock.now(), 1)).length > 0;
  }

  /** Emails of the last fan-out runs rendered on the broadcast's template, and composed fully. */
  readonly rendering = { template: 0, full: 0 };

  /**
   * Works due broadcasts page by page until each ends (sent or canceled) or `budgetMs` is spent;
   * a broadcast left mid-way continues at the next run, after its cursor.
   */
  async runDue(
    budgetMs = 240_000,
    limit = 20,
  ): Promise<{ broadcasts: number; emails: number; onTemplate: number; composedFully: number }> {
    const deadline = Date.now() + budgetMs;
    const rendering = { ...this.rendering };
    const ids = await this.broadcasts.dueIds(this.deps.clock.now(), limit);
    let emails = 0;
    for (const id of ids) {
      if (Date.now() > deadline) break;
      emails += await this.fanOut(id, { deadline });
    }
    return {
      broadcasts: ids.length,
      emails,
      // The job's log line: emails rendered on their broadcast's template, and composed fully (broadcast-mime.ts).
      onTemplate: this.rendering.template - rendering.template,
      composedFully: this.rendering.full - rendering.full,
    };
  }

  /** One broadcast, until it ends, `deadline` (epoch ms) passes or `pages` pages are done. */
  async fanOut(id: string, limits: { deadline?: number; pages?: number } = {}): Promise<number> {
    const deadline = limits.deadline ?? Number.POSITIVE_INFINITY;
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
    const pagesLeft = limits.pages ?? Number.POSITIVE_INFINITY;
    const mime = new BroadcastMime();
    const context: PageContext = { team, fallbacks, topicDefault, mailHost, mime, narrow };
    try {
      return await this.walkPages(id, context, deadline, pagesLeft);
    } finally {
      this.rendering.template += mime.counts.template;
      this.rendering.full += mime.counts.full;
    }
  }

  /**
   * The pages, two in flight: while one page commits (the database's work, on MariaDB another
   * process and core), the next one is read and rendered. Commits stay in page order: a page
   * commits only after the one before it has (page() waits for it), so the cursor never passes
   * a page that did not commit; a failed commit fails the pages after it, uncommitted.
   */
  private async walkPages(id: string, context: PageContext, deadline: number, pagesLeft: number): Promise<number> {
    let created = 0;
    let previous: Promise<number> | null = null;
    let after: string | null | undefined;
    try {
      while (Date.now() <= deadline && pagesLeft-- > 0) {
        const current = await this.broadcasts.findForFanOut(id);
        if (!current || current.status !== 'sending') break; // canceled: stop at this page
        if (!(await this.deps.marketingEnabled())) break; // paused: continue when resumed
        const members = await this.pages.members(
          context.team.id,
          context.narrow,
          after === undefined ? current.cursor : after,
          this.deps.pageSize,
        );
        if (members.length === 0) {
          const last = previous;
          previous = null;
          if (last) created += await last;
          const now = this.deps.clock.now();
          await this.broadcasts.transition(id, ['sending'], { status: 'sent', sent_at: now, updated_at: now });
          break;
        }
        after = members[members.length - 1]!.id;
        const page = this.page(current, members, context, previous ?? Promise.resolve(0));
        // Awaited below (or in finally); a failure surfaces there, never as an unhandled rejection.
        page.catch(() => undefined);
        // Page n + 1 is read and rendered while page n commits; n + 2 waits for n.
        const before = previous;
        previous = page;
        if (before) created += await before;
        if ((this.deps.pagesInFlight ?? 2) < 2) {
          previous = null;
          created += await page;
        }
      }
    } finally {
      if (previous) created += await previous;
    }
    return created;
  }

  private async page(
    broadcast: Broadcast,
    members: Awaited<ReturnType<RecipientPageRepository['members']>>,
    context: PageContext,
    previous: Promise<number>,
  ): Promise<number> {
    const { team, fallbacks, topicDefault, mailHost, mime } = context;
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
      const { emails, refused } = await this.deps.acceptance.acceptForBroadcast(
        team,
        broadcast.id,
        inputs,
        unit,
        mime.compose,
      );
      sending.forEach(({ row }, index) => {
        if (refused.has(index)) row.excluded = 'refused';
        else row.emailId = emails[index]!.id;
      });
      unit.write(
        `broadcast-recipients:${broadcast.id}`,
        rows,
        RecipientPageRepository.writer(broadcast.id, team.id, now),
      );
      // The page before commits first (its failure is this page's: nothing of it commits).
      await previous;
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
