import type { Knex } from 'knex';
import { isUuid } from '../../lib/ids.js';
import { parseDeliveryReport, type DeliveryReport } from '../sending/bounces/delivery-report.js';
import { parseFeedbackReport, type FeedbackReport } from '../sending/bounces/feedback-report.js';
import type { LateOutcomes } from '../sending/deliveries/late-outcomes.service.js';
import type { Email } from '../sending/emails/email.types.js';
import type { Logger } from '../../lib/logger.js';

/**
 * A report read from a message to a VERP or feedback-loop address, and the email it names,
 * looked up before the transaction that applies it (SQLite has one connection to give).
 */
export type ReadReport =
  | { kind: 'delivery'; report: DeliveryReport; emailId: string | null; email: Email | undefined }
  | { kind: 'feedback'; report: FeedbackReport; emailId: string | null; email: Email | undefined }
  | { kind: 'none' };

/** What applying a report did, for the log line of the message. */
export type ReportOutcome = {
  kind: 'bounced' | 'delayed' | 'complained' | 'ignored';
  emailId: string | null;
  recipients: string[];
  reason?: string;
};

/** Our Message-IDs are `<email id@domain>`: the id, when the local part is one. */
function emailIdOfMessageId(messageId: string | null): string | null {
  const local = messageId?.split('@')[0] ?? '';
  return isUuid(local) ? local.toLowerCase() : null;
}

/** The email a report is about: the VERP address it came to, else the returned original's Message-ID. */
function emailIdOf(verpEmailId: string | null, originalMessageId: string | null): string | null {
  return verpEmailId ?? emailIdOfMessageId(originalMessageId);
}

/**
 * Bounce reports (DSN, RFC 3464, and the common non-standard formats) and complaints (ARF,
 * RFC 5965) arriving at the MX: each is tied to the email it reports on and recorded as
 * email.bounced / email.delivery_delayed / email.complained with the suppression it causes.
 * A report we cannot tie to one of our emails is accepted and ignored (logged), never bounced.
 */
export class ReportIntake {
  constructor(
    private readonly outcomes: LateOutcomes,
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {}

  async read(raw: Buffer, target: { verpEmailId: string | null }): Promise<ReadReport> {
    const feedback = await parseFeedbackReport(raw);
    const delivery = feedback ? undefined : await parseDeliveryReport(raw);
    const report = feedback ?? delivery;
    if (!report) return { kind: 'none' };
    const emailId = emailIdOf(target.verpEmailId, report.originalMessageId);
    const email = emailId ? await this.outcomes.findEmail(emailId) : undefined;
    return feedback
      ? { kind: 'feedback', report: feedback, emailId, email }
      : { kind: 'delivery', report: delivery!, emailId, email };
  }

  async apply(trx: Knex.Transaction, read: ReadReport): Promise<ReportOutcome> {
    if (read.kind === 'none')
      return { kind: 'ignored', emailId: null, recipients: [], reason: 'not a DSN or ARF report' };
    const { email } = read;
    if (!email) return { kind: 'ignored', emailId: read.emailId, recipients: [], reason: 'no email of ours is named' };
    return read.kind === 'delivery'
      ? this.applyDelivery(trx, email, read.report)
      : this.applyFeedback(trx, email, read.report);
  }

  private async applyDelivery(trx: Knex.Transaction, email: Email, report: DeliveryReport): Promise<ReportOutcome> {
    const failed = report.recipients.filter((r) => r.action === 'failed');
    const delayed = report.recipients.filter((r) => r.action === 'delayed');
    const bounced: string[] = [];
    // One event per distinct verdict: recipients failed for different reasons get their own bounce.
    for (const entry of failed) {
      const recipients = this.outcomes.recipientsOf(email, [entry.recipient]);
      await this.outcomes.bounced(trx, email, recipients, entry.verdict.bounce);
      bounced.push(...recipients);
    }
    if (bounced.length > 0) return { kind: 'bounced', emailId: email.id, recipients: bounced };
    const late = this.outcomes.recipientsOf(
      email,
      delayed.map((r) => r.recipient),
    );
    if (late.length > 0) {
      await this.outcomes.delayed(trx, email, late, delayed[0]!.verdict.delayType);
      return { kind: 'delayed', emailId: email.id, recipients: late };
    }
    return {
      kind: 'ignored',
      emailId: email.id,
      recipients: [],
      reason: "the report names none of the email's recipients as failed",
    };
  }

  /**
   * A complaint counts for the recipient it names, which must be one of the email's: the
   * complainant (or an Original-Rcpt-To), else another clue of the report (the original's To: a
   * forward makes the complainant's mailbox differ from the address we sent to). A report that
   * names only addresses the email was not sent to is refused (logged at warn): it would
   * otherwise fall through to the email's recipient. A report that names nobody (redacted or
   * absent, as many providers send them) counts for the email's only recipient; with several
   * recipients nobody can be told apart and it is ignored.
   */
  private async applyFeedback(trx: Knex.Transaction, email: Email, report: FeedbackReport): Promise<ReportOutcome> {
    if (report.feedbackType === 'not-spam')
      return { kind: 'ignored', emailId: email.id, recipients: [], reason: 'a not-spam report' };
    const complainant = [report.originalRecipient, ...report.originalRcptTo].filter((a): a is string => Boolean(a));
    let recipients = this.outcomes.recipientsOf(email, complainant);
    if (recipients.length === 0) recipients = this.outcomes.recipientsOf(email, report.namedRecipients);
    if (recipients.length === 0 && report.namedRecipients.length > 0) return this.refused(email, report);
    if (recipients.length === 0) {
      const all = this.outcomes.allRecipients(email);
      if (all.length === 1) recipients = all;
    }
    if (recipients.length !== 1)
      return {
        kind: 'ignored',
        emailId: email.id,
        recipients: [],
        reason: 'the complaint names no single recipient of the email',
      };
    await this.outcomes.complained(trx, email, recipients[0]!);
    return { kind: 'complained', emailId: email.id, recipients };
  }

  /** A complaint naming someone else: no status, no suppression, no webhook; the operator is told. */
  private refused(email: Email, report: FeedbackReport): ReportOutcome {
    const reason = `the complaint names ${report.namedRecipients.join(', ')}, not one of the email's recipients`;
    this.logger?.warn(
      { emailId: email.id, teamId: email.teamId, named: report.namedRecipients, reason },
      'report: complaint refused',
    );
    return { kind: 'ignored', emailId: email.id, recipients: [], reason };
  }
}
