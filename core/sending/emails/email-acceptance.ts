import type { Knex } from 'knex';
import type { UnitOfWork, UnitsOfWork } from '../../../db/unit-of-work.js';
import type { Clock } from '../../../lib/clock.js';
import {
  AppError,
  DailyQuotaExceededError,
  ForbiddenValidationError,
  MonthlyQuotaExceededError,
  UnprocessableValidationError,
  ValidationError,
} from '../../../lib/errors.js';
import { newId } from '../../../lib/ids.js';
import type { SafeFetchResult } from '../../../lib/net/safe-fetch.js';
import type { SegmentSpool } from '../../../lib/spool/segment-spool.js';
import type { EventLog } from '../../events/log/event-log.js';
import type { Caller } from '../../platform/auth/caller.js';
import type { ApiKey } from '../../platform/api-keys/api-key.types.js';
import type { TeamService } from '../../platform/teams/team.service.js';
import type { UsageLedger } from '../../platform/usage/usage-ledger.js';
import type { Team } from '../../platform/teams/team.types.js';
import { parseMailbox, type Mailbox } from '../../shared/addresses/mailbox.js';
import { scheduledAtWithinLimits } from '../../shared/scheduling/schedule-phrase.js';
import { assertSandboxAllows } from '../domains/sandbox.js';
import { sendingStatus } from '../domains/sending-status.js';
import type { DomainService } from '../domains/domain.service.js';
import type { Domain } from '../domains/domain.types.js';
import type { SuppressionService } from '../suppressions/suppression.service.js';
import type { TemplateService } from '../templates/template.service.js';
import { acceptedEmailsWriter, type AcceptedEmails } from './accepted-emails.js';
import { loadAttachments, type LoadedAttachment } from './attachment-loader.js';
import { MAX_HEADER_NAME_LENGTH, uncarriableHeaderNames } from './header-rules.js';
import { resolveContent } from './email-content.js';
import { assertHonestDisplayNames } from './display-name-rule.js';
import { EmailRepository } from './email.repository.js';
import type { SendEmailInput } from './email.schemas.js';
import type { Email, EmailAttachment, EmailBodies } from './email.types.js';
import { composeMime, type ComposeInput } from './mime.js';
import { utcDayStart, utcMonthStart } from '../../shared/scheduling/quota-periods.js';
import { encodeRecord } from './spool-record.js';
import { unverifiedDomainRefusal } from './unverified-domain.js';

/** `recipients`: every address of to, cc and bcc, checked against the suppression list when the email commits. */
type PreparedEmail = {
  email: Email;
  recipients: string[];
  mime: Buffer;
  bodies: EmailBodies;
  attachments: LoadedAttachment[];
};

const MAX_RECIPIENTS = 50;

export type EmailAcceptanceDeps = {
  knex: Knex;
  clock: Clock;
  spool: SegmentSpool;
  units: UnitsOfWork;
  events: EventLog;
  domains: DomainService;
  teams: TeamService;
  templates: TemplateService;
  suppressions: SuppressionService;
  simulatorDomain: string;
  /** Fetches an attachment given by URL (https, public addresses only, bounded). */
  fetchAttachment: (url: string) => Promise<SafeFetchResult>;
  /** The usage ledger: accepted emails are recorded with their rows (accepted-emails.ts). */
  usage: Pick<UsageLedger, 'record'>;
  /** Open and click tracking of the HTML part, for domains with either on. */
  instrumentHtml?: (html: string, emailId: string, domain: Domain) => string;
};

const parseAll = (values: string[] | undefined): Mailbox[] => (values ?? []).map((value) => parseMailbox(value)!);
const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/**
 * The one way an email enters the system, whoever submits it (POST /emails and /emails/batch
 * today; SMTP submission, broadcasts and automations call the same): every check, the MIME
 * rendered, message and attachments in the spool (fsynced), then the rows and events written by
 * the caller's unit of work, so whatever the caller commits with them (its request log, the
 * Idempotency-Key's answer) is in the same transaction. Nothing acknowledged can be lost, and
 * a spool record orphaned by a crash before the commit is harmless.
 */
export class EmailAcceptance {
  private readonly repository: EmailRepository;
  /** The group commit's writer of accepted emails (with their suppression check, see accepted-emails.ts). */
  private readonly writeAccepted: (trx: Knex.Transaction, groups: AcceptedEmails[]) => Promise<void>;

  constructor(private readonly deps: EmailAcceptanceDeps) {
    this.repository = new EmailRepository(deps.knex);
    this.writeAccepted = acceptedEmailsWriter(deps);
  }

  /** One email; joins `unit` when given (the caller commits), else commits its own. */
  async accept(caller: Caller, input: SendEmailInput, unit?: UnitOfWork): Promise<Email> {
    const prepared = await this.prepare(caller, input);
    await this.stage([prepared], unit);
    return prepared.email;
  }

  /**
   * A batch. Strict: every message must pass or none is accepted. Permissive: the valid ones are
   * accepted and each refusal is reported with its index. Either way the accepted ones commit
   * together, and the batch counts against the quota as a whole.
   */
  async acceptBatch(
    caller: Caller,
    inputs: unknown[],
    mode: 'strict' | 'permissive',
    parse: (input: unknown, index: number) => SendEmailInput,
    unit?: UnitOfWork,
  ) {
    await this.assertQuota(caller.team, this.deps.clock.now(), inputs.length);
    const prepared: PreparedEmail[] = [];
    const errors: Array<{ index: number; message: string }> = [];
    for (const [index, raw] of inputs.entries()) {
      try {
        prepared.push(await this.prepare(caller, parse(raw, index), { quotaChecked: true }));
      } catch (err) {
        if (mode === 'strict' || !(err instanceof AppError)) throw err;
        errors.push({ index, message: err.message });
      }
    }
    await this.stage(prepared, unit);
    return { emails: prepared.map((p) => p.email), errors };
  }

  /** Every check, and the rendered MIME; nothing is written yet. */
  /**
   * One page of a broadcast's emails, one per recipient, joining the fan-out's unit of work: no
   * API key, the marketing meter (checked by the broadcast) instead of the transactional quota,
   * the bulk lane. A recipient refused by a sending rule (a sandboxed team, say) is reported by
   * index, not thrown: the rest of the page goes.
   */
  async acceptForBroadcast(
    team: Team,
    broadcastId: string,
    inputs: SendEmailInput[],
    unit: UnitOfWork,
    compose?: (input: ComposeInput) => Promise<Buffer>,
  ): Promise<{ emails: Array<Email | null>; refused: Map<number, string> }> {
    const prepared: PreparedEmail[] = [];
    const emails: Array<Email | null> = [];
    const refused = new Map<number, string>();
    for (const [index, input] of inputs.entries()) {
      try {
        const one = await this.prepare({ team, apiKey: null }, input, { quotaChecked: true, broadcastId, compose });
        prepared.push(one);
        emails.push(one.email);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        refused.set(index, err.message);
        emails.push(null);
      }
    }
    await this.stage(prepared, unit);
    return { emails, refused };
  }

  /**
   * One email of an automation's send_email step, joining the engine's unit of work (which
   * commits the run's step row with it): no API key, the team's transactional quota. A refusal
   * (a template gone, an unverified domain, the quota) is thrown.
   */
  async acceptForAutomation(team: Team, input: SendEmailInput, unit: UnitOfWork): Promise<Email> {
    const prepared = await this.prepare({ team, apiKey: null }, input);
    await this.stage([prepared], unit);
    return prepared.email;
  }

  /**
   * The appliance's own account mail (e-mail verification, password reset), sent as the
   * operator's team (accounts.mailTeamId) with no API key and that team's quota. Commits its own
   * unit: the account rows it follows were written already.
   */
  async acceptForAccountMail(team: Team, input: SendEmailInput): Promise<Email> {
    const prepared = await this.prepare({ team, apiKey: null }, input);
    await this.stage([prepared], undefined);
    return prepared.email;
  }

  private async prepare(
    sender: { team: Team; apiKey: ApiKey | null },
    input: SendEmailInput,
    // compose: the broadcast's renderer (a template rendered per recipient, mime-template.ts); composeMime by default.
    options: { quotaChecked?: boolean; broadcastId?: string; compose?: (input: ComposeInput) => Promise<Buffer> } = {},
  ): Promise<PreparedEmail> {
    const { team, apiKey } = sender;
    const content = await resolveContent(team, input, this.deps.templates);
    const from = parseMailbox(content.from);
    if (!from)
      throw new ValidationError('from must be an address or Name <address>', {
        errors: [{ path: 'from', message: 'is not an address' }],
      });
    const to = parseAll(input.to);
    const cc = parseAll(input.cc);
    const bcc = parseAll(input.bcc);
    const replyTo = parseAll(content.replyTo);
    assertHonestDisplayNames(from, replyTo);
    if (to.length + cc.length + bcc.length > MAX_RECIPIENTS) {
      throw new ValidationError(`to, cc and bcc together may hold at most ${MAX_RECIPIENTS} addresses`, {
        errors: [{ path: 'to', message: `at most ${MAX_RECIPIENTS} recipients in all` }],
      });
    }
    const tooLong = uncarriableHeaderNames(input.headers ?? {});
    if (tooLong.length > 0) {
      throw new UnprocessableValidationError(
        `Header names may have at most ${MAX_HEADER_NAME_LENGTH} characters: the message could not be carried`,
        {
          errors: tooLong.map((name) => ({
            path: `headers.${name}`,
            message: `a name longer than ${MAX_HEADER_NAME_LENGTH} characters cannot be carried`,
          })),
        },
      );
    }
    const now = this.deps.clock.now();
    const scheduledAt = scheduledAtWithinLimits(input.scheduled_at, now);

    const domain = await this.deps.domains.findVerifiedByName(team.id, domainOf(from.address));
    if (!domain) throw await unverifiedDomainRefusal(this.deps.domains, team.id, domainOf(from.address));
    if (apiKey?.domainId && apiKey.domainId !== domain.id)
      throw new ForbiddenValidationError('This API key is restricted to another domain: from must use it');
    const recipients = [...to, ...cc, ...bcc].map((m) => m.address);
    // Members and domains are read only when the region is in the team's sandbox.
    if (sendingStatus(team).sandbox_regions.includes(domain.region)) {
      assertSandboxAllows(
        {
          team,
          teamDomains: await this.deps.domains.repository.allForTeam(team.id),
          members: await this.deps.teams.members(team.id),
          simulatorDomain: this.deps.simulatorDomain,
        },
        domain.region,
        recipients,
      );
    }
    if (!options.quotaChecked) await this.assertQuota(team, now, 1);
    const attachments = await loadAttachments(input.attachments ?? [], this.deps.fetchAttachment);

    const id = newId();
    const messageId = `<${id}@${domain.name}>`;
    const { instrumentHtml } = this.deps;
    const html =
      content.html !== null && instrumentHtml && (domain.openTracking || domain.clickTracking)
        ? instrumentHtml(content.html, id, domain)
        : content.html;
    const mime = await (options.compose ?? composeMime)({
      from,
      to,
      cc,
      replyTo,
      subject: content.subject,
      html,
      text: content.text,
      headers: input.headers ?? {},
      attachments,
      messageId,
      date: now,
    });
    const email: Email = {
      id,
      teamId: team.id,
      domainId: domain.id,
      apiKeyId: apiKey?.id ?? null,
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
      broadcastId: options.broadcastId ?? null,
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
   * Messages and attachment bytes go to the spool (fsynced) first; their rows and events are
   * written by the unit of work, grouped with concurrent units: one transaction, and one INSERT
   * per table, for many requests.
   */
  private async stage(prepared: PreparedEmail[], unit: UnitOfWork | undefined): Promise<void> {
    const refs = await Promise.all(
      prepared.map(({ mime, bodies }) => this.deps.spool.append(encodeRecord(bodies, mime))),
    );
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
    const accepted: AcceptedEmails = {
      emails: prepared.map((p) => p.email),
      recipients: prepared.map((p) => p.recipients),
      attachmentRows,
    };
    if (unit) return unit.write('emails', accepted, this.writeAccepted);
    await this.deps.units.run((own) => own.write('emails', accepted, this.writeAccepted));
  }

  /** Daily cap and (on the free plan) the monthly allowance; no retry-after: they last until reset. */
  private async assertQuota(team: Team, now: Date, count: number): Promise<void> {
    const { daily_cap: dailyCap, included_emails: included } = team.plan.limits;
    if (dailyCap !== null) {
      const dayStart = utcDayStart(now);
      if ((await this.repository.countSince(team.id, dayStart)) + count > dailyCap)
        throw new DailyQuotaExceededError(`The daily quota of ${dailyCap} emails is used up; it resets at 00:00 UTC`);
    }
    if (team.plan.monthlyCap) {
      const monthStart = utcMonthStart(now);
      if ((await this.repository.countSince(team.id, monthStart)) + count > included)
        throw new MonthlyQuotaExceededError(`The monthly quota of ${included} emails is used up`);
    }
  }
}
