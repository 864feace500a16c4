import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import type { SegmentSpool } from '../../lib/spool/segment-spool.js';
import { formatSpoolRef } from '../../lib/spool/spool-ref-text.js';
import type { UnitsOfWork } from '../../db/unit-of-work.js';
import type { EventLog } from '../events/log/event-log.js';
import type { Team } from '../platform/teams/team.types.js';
import type { UsageLedger } from '../platform/usage/usage-ledger.js';
import type { InboundRecipients, RecipientRoute } from './inbound-recipients.js';
import { referencedIds } from '../shared/addresses/message-references.js';
import { receivedEventData } from './received-email-event.js';
import type { ReceivedEmailRepository } from './received-email.repository.js';
import type { AuthenticationResults, InboundEnvelope, ReceivedEmail } from './received-email.types.js';
import { readHeaderFields, type ReceivedHeaderFields } from './received-message.js';
import type { ReadReport, ReportIntake, ReportOutcome } from './report-intake.js';
import type {
  DmarcReportService,
  DmarcStoreOutcome,
  DmarcTarget,
  PreparedDmarcReport,
} from './dmarc-reports/dmarc-report.service.js';

/**
 * Blob namespace of raw received messages stored before issue 37 (dataDir/received/<id>.eml);
 * since then they are spool records (lib/spool/spool-ref-text.ts), and these are still read.
 */
export const RAW_NAMESPACE = 'received';

/** The group-commit key of received emails' rows. */
const RECEIVED_KEY = 'received_emails';

export type IntakeResult = {
  /** The message's id: its raw file's name, and the id of its first kept received email. */
  id: string;
  /** One per team the message is addressed to, the one with the message's id first. */
  received: ReceivedEmail[];
  reports: ReportOutcome[];
  /** Contacts unsubscribed by mail to a broadcast's mailto unsubscribe address. */
  unsubscribed: number;
  /** What became of the DMARC aggregate reports the message carried (one per domain addressed). */
  dmarcReports: DmarcStoreOutcome[];
  unrouted: string[];
};

type Routed = {
  mailboxes: Map<string, string[]>;
  reports: Array<{ verpEmailId: string | null }>;
  unsubscribes: string[];
  dmarc: DmarcTarget[];
  unrouted: string[];
};

/** Applies a mail to a mailto unsubscribe address in the intake's transaction; false: names no one. */
export type MailUnsubscribe = (trx: Knex, localPart: string) => Promise<boolean>;

/** Takes kept received emails further in the intake's transaction (the shared inboxes file them in threads). */
export type ReceivedMailHandler = (trx: Knex.Transaction, received: ReceivedEmail[]) => Promise<void>;

/** Envelope recipients grouped: per team the addresses that are theirs, and the report targets. */
function group(routes: RecipientRoute[]): Routed {
  const routed: Routed = { mailboxes: new Map(), reports: [], unsubscribes: [], dmarc: [], unrouted: [] };
  for (const route of routes) {
    if (route.kind === 'mailbox')
      for (const teamId of route.teamIds)
        routed.mailboxes.set(teamId, [...(routed.mailboxes.get(teamId) ?? []), route.address]);
    else if (route.kind === 'bounce') routed.reports.push({ verpEmailId: route.emailId });
    else if (route.kind === 'feedback') routed.reports.push({ verpEmailId: null });
    else if (route.kind === 'unsubscribe') routed.unsubscribes.push(route.localPart);
    else if (route.kind === 'dmarc') {
      if (!routed.dmarc.some((target) => target.domainId === route.domainId)) routed.dmarc.push(route);
    } else routed.unrouted.push(route.address);
  }
  return routed;
}

/**
 * A message the MX received, made durable before the MX answers 250: the raw message is appended
 * to the segment spool (fsynced), then in one transaction one received email per team it is
 * addressed to (with `email.received`) and the outcome of any bounce or complaint report it is.
 * If anything fails the MX answers 4xx and the sender retries; nothing that got a 250 is lost.
 */
export class InboundIntake {
  private unsubscribe: MailUnsubscribe | null = null;
  private readonly receivedHandlers: ReceivedMailHandler[] = [];

  constructor(
    private readonly deps: {
      /** Runs `work` in a transaction committed durably before it resolves (shared with concurrent work). */
      transact: <T>(work: (trx: Knex.Transaction) => Promise<T>) => Promise<T>;
      /** The same group committer's units of work: rows of concurrent messages in one multi-row write. */
      units: UnitsOfWork;
      clock: Clock;
      /** Raw messages: appended to the spool, one fsync for concurrent messages. */
      spool: Pick<SegmentSpool, 'append'>;
      recipients: InboundRecipients;
      repository: ReceivedEmailRepository;
      events: EventLog;
      reports: ReportIntake;
      team: (id: string) => Promise<Team>;
      authenticate: (raw: Buffer, envelope: InboundEnvelope) => Promise<AuthenticationResults | null>;
      /** Kept received emails are recorded in the usage ledger, in the intake's transaction. */
      usage: Pick<UsageLedger, 'record'>;
      /** DMARC aggregate reports: read before the transaction, stored in it. */
      dmarcReports?: Pick<DmarcReportService, 'assertSize' | 'prepare' | 'store'>;
    },
  ) {}

  /** Who handles mail to mailto unsubscribe addresses (the audience, wired after receiving). */
  onUnsubscribeMail(handler: MailUnsubscribe): void {
    this.unsubscribe = handler;
  }

  /** Who else files received mail, in the same transaction as its rows (nothing kept is then missed). */
  onReceivedMail(handler: ReceivedMailHandler): void {
    this.receivedHandlers.push(handler);
  }

  async accept(envelope: InboundEnvelope, raw: Buffer): Promise<IntakeResult> {
    const id = newId();
    const routed = group(await Promise.all(envelope.recipients.map((r) => this.deps.recipients.route(r))));
    const received = routed.mailboxes.size > 0 ? await this.receivedEmails(id, envelope, raw, routed.mailboxes) : [];
    const reads: ReadReport[] = [];
    for (const target of routed.reports.slice(0, 1))
      reads.push(await this.deps.reports.read(raw, { verpEmailId: target.verpEmailId }));
    const dmarcReads = await this.dmarcReads(routed, raw);
    const reports =
      reads.length === 0 && routed.unsubscribes.length === 0 && dmarcReads.length === 0
        ? await this.commitReceived(received)
        : await this.deps.transact((trx) => this.write(trx, received, reads, routed.unsubscribes, dmarcReads));
    return {
      id,
      received,
      reports: reports.outcomes,
      unsubscribed: reports.unsubscribed,
      dmarcReports: reports.dmarcReports,
      unrouted: routed.unrouted,
    };
  }

  /**
   * Mail for mailboxes only (nearly all of it): its rows join the next group commit as one part,
   * so the rows, usage records and events of every message in the group are written by three
   * multi-row INSERTs in one transaction with one fsync, as the send path writes accepted emails.
   */
  private async commitReceived(received: ReceivedEmail[]) {
    if (received.length > 0)
      await this.deps.units.run((unit) => unit.write(RECEIVED_KEY, received, this.writeReceived));
    return { outcomes: [] as ReportOutcome[], unsubscribed: 0, dmarcReports: [] as DmarcStoreOutcome[] };
  }

  /** The group's received emails (each payload one message's rows), with their usage and events. */
  private readonly writeReceived = async (trx: Knex.Transaction, payloads: ReceivedEmail[][]) => {
    const received = payloads.flat();
    await this.deps.repository.insertMany(trx, received);
    const kept = received.filter((email) => email.droppedReason === null);
    // One record per kept email (a dropped one, for a suspended team, is not usage).
    await this.deps.usage.record(
      trx,
      kept.map((email) => ({
        teamId: email.teamId,
        category: 'received_emails' as const,
        quantity: 1,
        at: email.createdAt,
        sourceId: email.id,
      })),
    );
    if (kept.length > 0)
      await this.deps.events.recordMany(
        trx,
        kept.map((email) => ({
          teamId: email.teamId,
          type: 'email.received' as const,
          data: receivedEventData(email),
        })),
      );
    if (kept.length > 0) for (const handler of this.receivedHandlers) await handler(trx, kept);
  };

  /**
   * A message that is (also) a report or an unsubscribe: one work item of the group committer; a
   * group that fails is retried message by message, so this may run twice and keeps no state outside.
   */
  private async write(
    trx: Knex.Transaction,
    received: ReceivedEmail[],
    reads: ReadReport[],
    unsubscribes: string[],
    dmarcReads: PreparedDmarcReport[],
  ) {
    await this.writeReceived(trx, [received]);
    const outcomes: ReportOutcome[] = [];
    for (const read of reads) outcomes.push(await this.deps.reports.apply(trx, read));
    let unsubscribed = 0;
    for (const localPart of unsubscribes)
      if (this.unsubscribe && (await this.unsubscribe(trx, localPart))) unsubscribed++;
    const dmarcReports: DmarcStoreOutcome[] = [];
    for (const read of dmarcReads) dmarcReports.push(await this.deps.dmarcReports!.store(trx, read));
    return { outcomes, unsubscribed, dmarcReports };
  }

  /**
   * The DMARC reports of a message, read before its transaction. A message sent only to report
   * addresses and larger than the limit is refused (DmarcReportTooLargeError: 552 at DATA);
   * beside other recipients it is taken and the report recorded as failed.
   */
  private async dmarcReads(routed: Routed, raw: Buffer): Promise<PreparedDmarcReport[]> {
    const service = this.deps.dmarcReports;
    if (!service || routed.dmarc.length === 0) return [];
    const onlyReports = routed.mailboxes.size === 0 && routed.reports.length === 0 && routed.unsubscribes.length === 0;
    if (onlyReports) service.assertSize(raw);
    return Promise.all(routed.dmarc.map((target) => service.prepare(raw, target)));
  }

  /** One row per team; the raw message is written once, before any row refers to it. */
  private async receivedEmails(
    messageId: string,
    envelope: InboundEnvelope,
    raw: Buffer,
    mailboxes: Map<string, string[]>,
  ): Promise<ReceivedEmail[]> {
    const fields = await readHeaderFields(raw);
    const teams = await Promise.all([...mailboxes.keys()].map((teamId) => this.deps.team(teamId)));
    const stored = teams.some((team) => team.riskState !== 'suspended');
    // The raw message goes to the segment spool, where concurrent messages share one write and
    // one fsync (as accepted emails do); that and the SPF/DKIM/DMARC checks (CPU and DNS)
    // overlap, and both are done before any row refers to the record.
    const [rawRef, authentication] = stored
      ? await Promise.all([this.deps.spool.append(raw), this.deps.authenticate(raw, envelope)])
      : [null, null];
    const now = this.deps.clock.now();
    // The MX's 250 names the message id: the first kept received email takes it as its own id
    // (and comes first), so `GET /emails/receiving/<id>` finds what the 250 named.
    const named = Math.max(
      0,
      teams.findIndex((team) => team.riskState !== 'suspended'),
    );
    const ordered = [teams[named]!, ...teams.filter((_, i) => i !== named)];
    return ordered.map((team, i) =>
      this.row(i === 0 ? messageId : newId(), team, fields, mailboxes.get(team.id)!, {
        messageId,
        envelope,
        raw,
        rawRef: rawRef === null ? null : formatSpoolRef(rawRef),
        references: referencedIds(raw),
        authentication,
        now,
      }),
    );
  }

  private row(
    id: string,
    team: Team,
    fields: ReceivedHeaderFields,
    receivedFor: string[],
    context: {
      messageId: string;
      envelope: InboundEnvelope;
      raw: Buffer;
      /** Where the raw message is (a spool record), or null when no team keeps it. */
      rawRef: string | null;
      references: string[];
      authentication: AuthenticationResults | null;
      now: Date;
    },
  ): ReceivedEmail {
    const dropped = team.riskState === 'suspended';
    return {
      id,
      teamId: team.id,
      from: fields.from,
      to: fields.to,
      cc: fields.cc,
      bcc: fields.bcc,
      replyTo: fields.replyTo,
      receivedFor,
      subject: fields.subject,
      messageId: fields.messageId,
      attachments: fields.attachments.map((attachment, index) => ({ id: newId(), index, ...attachment })),
      authentication: dropped ? null : context.authentication,
      envelopeFrom: context.envelope.mailFrom,
      remoteIp: context.envelope.remoteIp,
      droppedReason: dropped ? 'team_suspended' : null,
      rawBlob: dropped ? null : context.rawRef,
      sizeBytes: context.raw.length,
      createdAt: context.now,
      references: context.references,
    };
  }
}
