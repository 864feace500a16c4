import type { Knex } from 'knex';
import type { SegmentSpool } from '../../../lib/spool/segment-spool.js';
import type { Clock } from '../../../lib/clock.js';
import { NotFoundError, ResourceLockedError } from '../../../lib/errors.js';
import { isUuid } from '../../../lib/ids.js';
import type { EventLog } from '../../events/log/event-log.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import { purgeByPlanRetention } from '../../platform/retention/plan-retention.js';
import { scheduledAtWithinLimits } from '../../shared/scheduling/schedule-phrase.js';
import { EmailRepository } from './email.repository.js';
import type { EmailListFilter } from './email-list-filter.js';
import type { Email, EmailAttachment, EmailBodies } from './email.types.js';
import { decodeRecord, mimeOfRecord } from './spool-record.js';
import { emailEventData } from './email-event-data.js';
import type { DownloadLinks } from './download-links.js';

export type EmailServiceDeps = {
  knex: Knex;
  clock: Clock;
  spool: SegmentSpool;
  events: EventLog;
  links: DownloadLinks;
};

/**
 * Accepted emails after acceptance (which is email-acceptance.ts): reads with their bodies,
 * attachments and their signed download links, rescheduling and canceling while scheduled, the
 * scheduler's hand-over of due emails, and retention.
 */
export class EmailService {
  private readonly repository: EmailRepository;

  constructor(private readonly deps: EmailServiceDeps) {
    this.repository = new EmailRepository(deps.knex);
  }

  /** PATCH /emails/{id}: a new time for a scheduled email; once dispatched it is locked. */
  async reschedule(teamId: string, id: string, scheduledAt: string): Promise<Email> {
    const { email } = await this.get(teamId, id);
    const at = scheduledAtWithinLimits(scheduledAt, this.deps.clock.now());
    const changed = await this.repository.updateIfScheduled(email.id, {
      scheduledAt: at!,
      updatedAt: this.deps.clock.now(),
    });
    if (!changed)
      throw new ResourceLockedError(`This email is ${email.lastEvent}: only a scheduled email can be rescheduled`);
    return { ...email, scheduledAt: at };
  }

  /** POST /emails/{id}/cancel: a scheduled email is canceled (email.canceled); once dispatched it is locked. */
  async cancel(teamId: string, id: string): Promise<Email> {
    const { email } = await this.get(teamId, id);
    const now = this.deps.clock.now();
    const canceled = await this.deps.knex.transaction(async (trx) => {
      const changed = await new EmailRepository(trx).updateIfScheduled(email.id, {
        lastEvent: 'canceled',
        updatedAt: now,
      });
      if (changed) await this.deps.events.record(teamId, 'email.canceled', emailEventData(email), trx);
      return changed;
    });
    if (!canceled)
      throw new ResourceLockedError(`This email is ${email.lastEvent}: only a scheduled email can be canceled`);
    return { ...email, lastEvent: 'canceled' };
  }

  /**
   * The scheduler's hand-over: due scheduled emails become queued for the MTA. Each row moves by
   * a conditional update, so with several schedulers every email is handed over exactly once.
   */
  async dispatchDue(limit = 500): Promise<string[]> {
    const now = this.deps.clock.now();
    const due = await this.repository.dueScheduled(now, limit);
    const dispatched: string[] = [];
    for (const id of due) if (await this.repository.dispatch(id, now)) dispatched.push(id);
    return dispatched;
  }

  /** The team's email without its bodies (no spool read): 404 for another team's or an unknown id. */
  async find(teamId: string, id: string): Promise<Email> {
    const email = isUuid(id) ? await this.repository.findInTeam(teamId, id.toLowerCase()) : undefined;
    if (!email) throw new NotFoundError('Email not found');
    return email;
  }

  async get(teamId: string, id: string): Promise<{ email: Email; bodies: EmailBodies }> {
    const email = await this.find(teamId, id);
    const record = await this.deps.spool.read(email.spool);
    return { email, bodies: record ? decodeRecord(record).bodies : { html: null, text: null } };
  }

  async list(teamId: string, page: PageQuery & EmailListFilter) {
    return this.repository.list(teamId, page);
  }

  /** Attachments of a sent email, each with an expiring download link. */
  async attachments(teamId: string, emailId: string) {
    const { email } = await this.get(teamId, emailId);
    const now = this.deps.clock.now();
    return (await this.repository.attachmentsOf(email.id)).map((attachment) => ({
      attachment,
      link: this.deps.links.create(attachment.id, now),
    }));
  }

  async attachment(teamId: string, emailId: string, attachmentId: string) {
    const found = (await this.attachments(teamId, emailId)).find((a) => a.attachment.id === attachmentId.toLowerCase());
    if (!found) throw new NotFoundError('Attachment not found');
    return found;
  }

  /** A sent email's attachments with their bytes, in order (a forward from an inbox sends them again). */
  async attachmentContents(teamId: string, emailId: string) {
    const email = await this.find(teamId, emailId);
    const stored = await this.repository.attachmentsOf(email.id);
    return Promise.all(
      stored.map(async (attachment) => ({ attachment, bytes: await this.deps.spool.read(attachment.spool) })),
    );
  }

  /** The download route: a valid, unexpired link gives the bytes; anything else is 404. */
  async download(
    attachmentId: string,
    expires: string,
    signature: string,
  ): Promise<{ attachment: EmailAttachment; bytes: Buffer }> {
    const valid =
      isUuid(attachmentId) &&
      this.deps.links.verify(attachmentId.toLowerCase(), expires, signature, this.deps.clock.now());
    const attachment = valid ? await this.repository.findAttachment(attachmentId.toLowerCase()) : undefined;
    const bytes = attachment ? await this.deps.spool.read(attachment.spool) : null;
    if (!attachment || !bytes) throw new NotFoundError('Attachment not found or link expired');
    return { attachment, bytes };
  }

  /** Other groups' rows that refer to spool records (received mail's raw messages). */
  private readonly otherSpoolReferences: Array<(segment: string) => Promise<boolean>> = [];

  /** A segment `isReferenced` says is still in use is never swept (registered when the services are built). */
  keepSpoolSegmentsReferencedBy(isReferenced: (segment: string) => Promise<boolean>): void {
    this.otherSpoolReferences.push(isReferenced);
  }

  /**
   * Retention: emails and their attachments are kept for the team plan's window; then the spool
   * segments nothing points into any more (no email, attachment or other group's row) are deleted.
   */
  async purgeExpired(): Promise<{ emails: number; attachments: number; segments: number }> {
    const now = this.deps.clock.now();
    const attachments = await purgeByPlanRetention(this.deps.knex, 'email_attachments', now);
    const emails = await purgeByPlanRetention(this.deps.knex, 'emails', now);
    const segments = await this.deps.spool.sweep(
      async (segment) =>
        (await this.repository.segmentReferenced(segment)) ||
        (await someReferences(this.otherSpoolReferences, segment)),
      24 * 3600_000,
      now.getTime(),
    );
    return { emails, attachments, segments: segments.length };
  }

  /** The stored MIME of an accepted email (what the MTA sends). */
  async mime(email: Email): Promise<Buffer | null> {
    const record = await this.deps.spool.read(email.spool);
    return record ? mimeOfRecord(record) : null;
  }
}

async function someReferences(checks: Array<(segment: string) => Promise<boolean>>, segment: string): Promise<boolean> {
  for (const check of checks) if (await check(segment)) return true;
  return false;
}
