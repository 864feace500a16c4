import type { Knex } from 'knex';
import type { SegmentSpool, SpoolRef } from '../../../lib/spool/segment-spool.js';
import type { Clock } from '../../../lib/clock.js';
import { AppError, DailyQuotaExceededError, ForbiddenValidationError, InvalidAttachmentError, MonthlyQuotaExceededError, NotFoundError, ResourceLockedError, ValidationError } from '../../../lib/errors.js';
import { isUuid, newId } from '../../../lib/ids.js';
import type { Authenticated } from '../../platform/api-keys/api-key.service.js';
import { parseMailbox, type Mailbox } from '../../shared/addresses/mailbox.js';
import { assertSandboxAllows } from '../domains/sandbox.js';
import { sendingStatus } from '../domains/sending-status.js';
import type { DomainService } from '../domains/domain.service.js';
import type { Domain } from '../domains/domain.types.js';
import type { EventService } from '../../events/log/event.service.js';
import type { PageQuery } from '../../shared/pagination/list-query.js';
import type { SuppressionService } from '../suppressions/suppression.service.js';
import type { TeamService } from '../../platform/teams/team.service.js';
import type { Team } from '../../platform/teams/team.types.js';
import type { TemplateService } from '../templates/template.service.js';
import { resolveContent } from './email-content.js';
import { EmailRepository } from './email.repository.js';
import type { SendEmailInput } from './email.schemas.js';
import type { Email, EmailAttachment, EmailBodies } from './email.types.js';
import { decodeRecord, encodeRecord, mimeOfRecord } from './spool-record.js';
import { acceptedEmailsWriter, type AcceptedEmails } from './accepted-emails.js';
import { composeMime } from './mime.js';
import { emailEventData } from './email-event-data.js';
import type { SafeFetchResult } from '../../../lib/net/safe-fetch.js';
import { commitPart, type CommitPart, type GroupCommitter } from '../../../db/group-commit.js';
import type { DownloadLinks } from './download-links.js';
import { purgeByPlanRetention } from '../../platform/retention/plan-retention.js';
import { MAX_SCHEDULE_AHEAD_MS, MIN_SCHEDULE_AHEAD_MS, parseScheduledAt } from './schedule-phrase.js';
import { contentTypeFromServer, fileNameFromUrl } from './attachment-rules.js';

type LoadedAttachment = { filename?: string; content: Buffer; contentType?: string; contentId?: string };
/** `recipients`: every address of to, cc and bcc, checked against the suppression list when the email commits. */
type PreparedEmail = { email: Email; recipients: string[]; mime: Buffer; bodies: EmailBodies; attachments: LoadedAttachment[] };

const MAX_RECIPIENTS = 50;

export type EmailServiceDeps = {
  knex: Knex;
  clock: Clock;
  spool: SegmentSpool;
  events: EventService;
  domains: DomainService;
  teams: TeamService;
  templates: TemplateService;
  suppressions: SuppressionService;
  simulatorDomain: string;
  /** Fetches an attachment given by URL (https, public addresses only, bounded). */
  fetchAttachment: (url: string) => Promise<SafeFetchResult>;
  committer: GroupCommitter;
  links: DownloadLinks;
  /** Open and click tracking of the HTML part, for domains with either on. */
  instrumentHtml?: (html: string, emailId: string, domain: Domain) => string;
};

const parseAll = (values: string[] | undefined): Mailbox[] => (values ?? []).map((value) => parseMailbox(value)!);
const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/**
 * POST /emails: checks a message completely, then records it durably (MIME and bodies fsynced
 * in the blob store, then the row and its events in one transaction) before answering its id.
 */
export class EmailService {
  private readonly repository: EmailRepository;

  /** The group commit's writer of accepted emails (with their suppression check, see accepted-emails.ts). */
  private readonly insertAccepted: (trx: Knex, groups: AcceptedEmails[]) => Promise<void>;

  constructor(private readonly deps: EmailServiceDeps) {
    this.repository = new EmailRepository(deps.knex);
    this.insertAccepted = acceptedEmailsWriter(deps);
  }

  /** `alongside`: rows to commit in the same transaction as the email's (its request log). */
  async send(auth: Authenticated, input: SendEmailInput, alongside?: (email: Email) => CommitPart[]): Promise<Email> {
    const prepared = await this.prepare(auth, input);
    await this.commit([prepared], alongside?.(prepared.email));
    return prepared.email;
  }

  /**
   * POST /emails/batch. Strict: every message must pass or none is accepted. Permissive: the
   * valid ones are accepted and each refusal is reported with its index. Either way the accepted
   * ones commit together, and the batch counts against the quota as a whole.
   */
  async sendBatch(auth: Authenticated, inputs: unknown[], mode: 'strict' | 'permissive', parse: (input: unknown, index: number) => SendEmailInput) {
    await this.assertQuota(auth.team, this.deps.clock.now(), inputs.length);
    const prepared: PreparedEmail[] = [];
    const errors: Array<{ index: number; message: string }> = [];
    for (const [index, raw] of inputs.entries()) {
      try {
        prepared.push(await this.prepare(auth, parse(raw, index), { quotaChecked: true }));
      } catch (err) {
        if (mode === 'strict' || !(err instanceof AppError)) throw err;
        errors.push({ index, message: err.message });
      }
    }
    await this.commit(prepared);
    return { emails: prepared.map((p) => p.email), errors };
  }

  /** Every check, and the rendered MIME; nothing is written yet. */
  private async prepare(auth: Authenticated, input: SendEmailInput, options: { quotaChecked?: boolean } = {}): Promise<PreparedEmail> {
    const { team, apiKey } = auth;
    const content = await resolveContent(team, input, this.deps.templates);
    const from = parseMailbox(content.from);
    if (!from) throw new ValidationError('from must be an address or Name <address>', { errors: [{ path: 'from', message: 'is not an address' }] });
    const to = parseAll(input.to);
    const cc = parseAll(input.cc);
    const bcc = parseAll(input.bcc);
    const replyTo = parseAll(content.replyTo);
    if (to.length + cc.length + bcc.length > MAX_RECIPIENTS) {
      throw new ValidationError(`to, cc and bcc together may hold at most ${MAX_RECIPIENTS} addresses`, { errors: [{ path: 'to', message: `at most ${MAX_RECIPIENTS} recipients in all` }] });
    }
    const now = this.deps.clock.now();
    const scheduledAt = this.scheduledAt(input.scheduled_at, now);

    const domain = await this.deps.domains.findVerifiedByName(team.id, domainOf(from.address));
    if (!domain) throw new ForbiddenValidationError(`The domain ${domainOf(from.address)} is not verified by this team: add and verify it at /domains`);
    if (apiKey.domainId && apiKey.domainId !== domain.id) throw new ForbiddenValidationError('This API key is restricted to another domain: from must use it');
    const recipients = [...to, ...cc, ...bcc].map((m) => m.address);
    // Members and domains are read only when the region is in the team's sandbox.
    if (sendingStatus(team).sandbox_regions.includes(domain.region)) {
      assertSandboxAllows(
        { team, teamDomains: await this.deps.domains.repository.allForTeam(team.id), members: await this.deps.teams.members(team.id), simulatorDomain: this.deps.simulatorDomain },
        domain.region,
        recipients,
      );
    }
    if (!options.quotaChecked) await this.assertQuota(team, now, 1);
    const attachments = await this.loadAttachments(input.attachments ?? []);

    const id = newId();
    const messageId = `<${id}@${domain.name}>`;
    const { instrumentHtml } = this.deps;
    const html = content.html !== null && instrumentHtml && (domain.openTracking || domain.clickTracking) ? instrumentHtml(content.html, id, domain) : content.html;
    const mime = await composeMime({ from, to, cc, replyTo, subject: content.subject, html, text: content.text, headers: input.headers ?? {}, attachments, messageId, date: now });
    const email: Email = {
      id,
      teamId: team.id,
      domainId: domain.id,
      apiKeyId: apiKey.id,
      fromHeader: content.from,
      fromAddress: from.address,
      to: input.to,
      cc: input.cc ?? null,
      bcc: input.bcc ?? null,
      replyTo: content.replyTo ?? null,
      // Both settled when the email commits (accepted-emails.ts): suppressed recipients, and 'suppressed' if all are.
      suppressedRecipients: [],
      subject: content.subject,
      tags: input.tags ? Object.fromEntries(input.tags.map((tag) => [tag.name, tag.value])) : null,
      headers: input.headers && Object.keys(input.headers).length > 0 ? input.headers : null,
      templateId: content.templateId,
      templateVersionId: content.templateVersionId,
      topicId: input.topic_id ?? null,
      messageId,
      lastEvent: scheduledAt ? 'scheduled' : 'queued',
      scheduledAt,
      sizeBytes: mime.length,
      spool: { segment: '', offset: 0, length: 0 },
      createdAt: now,
      updatedAt: now,
    };
    return { email, recipients, mime, bodies: { html: content.html, text: content.text }, attachments };
  }

  /**
   * Messages are in the spool (fsynced) before their rows exist, and rows and events commit
   * (grouped with concurrent requests) before the answer: nothing acknowledged can be lost, and
   * a record orphaned by a crash in between is harmless.
   */
  private async commit(prepared: PreparedEmail[], alongside: CommitPart[] = []): Promise<void> {
    const refs: SpoolRef[] = await Promise.all(prepared.map(({ mime, bodies }) => this.deps.spool.append(encodeRecord(bodies, mime))));
    prepared.forEach((p, i) => (p.email.spool = refs[i]!));
    // Attachment bytes get their own records, so one can be served without parsing the MIME.
    const attachmentRows: EmailAttachment[] = [];
    for (const { email, attachments } of prepared) {
      const attachmentRefs = await Promise.all(attachments.map((a) => this.deps.spool.append(a.content)));
      attachments.forEach((a, position) =>
        attachmentRows.push({
          id: newId(),
          emailId: email.id,
          teamId: email.teamId,
          position,
          filename: a.filename ?? null,
          contentType: a.contentType ?? 'application/octet-stream',
          contentDisposition: a.contentId ? 'inline' : 'attachment',
          contentId: a.contentId ?? null,
          size: a.content.length,
          spool: attachmentRefs[position]!,
          createdAt: email.createdAt,
        }),
      );
    }
    if (prepared.length === 0) return;
    // Grouped with concurrent sends: one transaction, and one INSERT per table, for many requests.
    const accepted: AcceptedEmails = { emails: prepared.map((p) => p.email), recipients: prepared.map((p) => p.recipients), attachmentRows };
    await this.deps.committer.commit([commitPart('emails', accepted, this.insertAccepted), ...alongside]);
  }

  /** PATCH /emails/{id}: a new time for a scheduled email; once dispatched it is locked. */
  async reschedule(teamId: string, id: string, scheduledAt: string): Promise<Email> {
    const { email } = await this.get(teamId, id);
    const at = this.scheduledAt(scheduledAt, this.deps.clock.now());
    const changed = await this.repository.updateIfScheduled(email.id, { scheduledAt: at!, updatedAt: this.deps.clock.now() });
    if (!changed) throw new ResourceLockedError(`This email is ${email.lastEvent}: only a scheduled email can be rescheduled`);
    return { ...email, scheduledAt: at };
  }

  /** POST /emails/{id}/cancel: a scheduled email is canceled (email.canceled); once dispatched it is locked. */
  async cancel(teamId: string, id: string): Promise<Email> {
    const { email } = await this.get(teamId, id);
    const now = this.deps.clock.now();
    const canceled = await this.deps.knex.transaction(async (trx) => {
      const changed = await new EmailRepository(trx).updateIfScheduled(email.id, { lastEvent: 'canceled', updatedAt: now });
      if (changed) await this.deps.events.record(teamId, 'email.canceled', emailEventData(email), trx);
      return changed;
    });
    if (!canceled) throw new ResourceLockedError(`This email is ${email.lastEvent}: only a scheduled email can be canceled`);
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

  async get(teamId: string, id: string): Promise<{ email: Email; bodies: EmailBodies }> {
    const email = isUuid(id) ? await this.repository.findInTeam(teamId, id.toLowerCase()) : undefined;
    if (!email) throw new NotFoundError('Email not found');
    const record = await this.deps.spool.read(email.spool);
    return { email, bodies: record ? decodeRecord(record).bodies : { html: null, text: null } };
  }

  async list(teamId: string, page: PageQuery) {
    return this.repository.list(teamId, page);
  }

  /** Attachments of a sent email, each with an expiring download link. */
  async attachments(teamId: string, emailId: string) {
    const { email } = await this.get(teamId, emailId);
    const now = this.deps.clock.now();
    return (await this.repository.attachmentsOf(email.id)).map((attachment) => ({ attachment, link: this.deps.links.create(attachment.id, now) }));
  }

  async attachment(teamId: string, emailId: string, attachmentId: string) {
    const found = (await this.attachments(teamId, emailId)).find((a) => a.attachment.id === attachmentId.toLowerCase());
    if (!found) throw new NotFoundError('Attachment not found');
    return found;
  }

  /** The download route: a valid, unexpired link gives the bytes; anything else is 404. */
  async download(attachmentId: string, expires: string, signature: string): Promise<{ attachment: EmailAttachment; bytes: Buffer }> {
    const valid = isUuid(attachmentId) && this.deps.links.verify(attachmentId.toLowerCase(), expires, signature, this.deps.clock.now());
    const attachment = valid ? await this.repository.findAttachment(attachmentId.toLowerCase()) : undefined;
    const bytes = attachment ? await this.deps.spool.read(attachment.spool) : null;
    if (!attachment || !bytes) throw new NotFoundError('Attachment not found or link expired');
    return { attachment, bytes };
  }

  /**
   * Retention: emails and their attachments are kept for the team plan's window; then the spool
   * segments nothing points into any more are deleted.
   */
  async purgeExpired(): Promise<{ emails: number; attachments: number; segments: number }> {
    const now = this.deps.clock.now();
    const attachments = await purgeByPlanRetention(this.deps.knex, 'email_attachments', now);
    const emails = await purgeByPlanRetention(this.deps.knex, 'emails', now);
    const segments = await this.deps.spool.sweep((segment) => this.repository.segmentReferenced(segment), 24 * 3600_000, now.getTime());
    return { emails, attachments, segments: segments.length };
  }

  /** The stored MIME of an accepted email (what the MTA sends). */
  async mime(email: Email): Promise<Buffer | null> {
    const record = await this.deps.spool.read(email.spool);
    return record ? mimeOfRecord(record) : null;
  }

  /**
   * Attachments reach the composer only as buffers: exactly one of content (base64) or path
   * (an https URL fetched here, never by the composer).
   */
  private async loadAttachments(attachments: NonNullable<SendEmailInput['attachments']>) {
    const loaded = [];
    for (const [i, attachment] of attachments.entries()) {
      const path = `attachments.${i}`;
      if ((attachment.content === undefined) === (attachment.path === undefined)) {
        throw new InvalidAttachmentError('Each attachment needs exactly one of content and path', { errors: [{ path, message: 'send content (base64) or path, exactly one' }] });
      }
      if (attachment.path !== undefined) {
        const fetched = await this.deps.fetchAttachment(attachment.path);
        if (!fetched.ok) throw new InvalidAttachmentError(`Attachment ${i} could not be fetched: ${fetched.reason}`, { errors: [{ path: `${path}.path`, message: fetched.reason }] });
        const filename = attachment.filename ?? fileNameFromUrl(fetched.finalUrl);
        loaded.push({ filename, content: fetched.bytes, contentType: attachment.content_type ?? contentTypeFromServer(fetched.contentType), contentId: attachment.content_id });
        continue;
      }
      const compact = attachment.content!.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
        throw new InvalidAttachmentError('Attachment content must be base64', { errors: [{ path: `${path}.content`, message: 'is not base64' }] });
      }
      loaded.push({ filename: attachment.filename, content: Buffer.from(compact, 'base64'), contentType: attachment.content_type, contentId: attachment.content_id });
    }
    return loaded;
  }

  private scheduledAt(value: string | undefined, now: Date): Date | null {
    if (value === undefined) return null;
    const at = parseScheduledAt(value, now);
    const ahead = at ? at.getTime() - now.getTime() : NaN;
    if (!at || !(ahead >= MIN_SCHEDULE_AHEAD_MS && ahead <= MAX_SCHEDULE_AHEAD_MS)) {
      throw new ValidationError('scheduled_at must be an ISO 8601 instant or a phrase such as "in 1 hour", between 1 minute and 30 days ahead', {
        errors: [{ path: 'scheduled_at', message: at ? 'must be between 1 minute and 30 days ahead' : 'is not a date, time or phrase this service reads' }],
      });
    }
    return at;
  }

  /** Daily cap and (on the free plan) the monthly allowance; no retry-after: they last until reset. */
  private async assertQuota(team: Team, now: Date, count: number): Promise<void> {
    const { daily_cap: dailyCap, included_emails: included } = team.plan.limits;
    if (dailyCap !== null) {
      const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
      if ((await this.repository.countSince(team.id, dayStart)) + count > dailyCap) throw new DailyQuotaExceededError(`The daily quota of ${dailyCap} emails is used up; it resets at 00:00 UTC`);
    }
    if (team.plan.monthlyCap) {
      const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
      if ((await this.repository.countSince(team.id, monthStart)) + count > included) throw new MonthlyQuotaExceededError(`The monthly quota of ${included} emails is used up`);
    }
  }
}
