import type { Knex } from 'knex';
import type { EventLog } from '../../events/log/event-log.js';
import { usagePeriod, type UsageLedger } from '../../platform/usage/usage-ledger.js';
import type { UsageEntry } from '../../platform/usage/usage.types.js';
import type { SuppressionService } from '../suppressions/suppression.service.js';
import { emailEventData } from './email-event-data.js';
import { EmailRepository } from './email.repository.js';
import type { Email, EmailAttachment } from './email.types.js';

/** One request's accepted emails as a part of a group commit; `recipients[i]` are emails[i]'s addresses. */
export type AcceptedEmails = { emails: Email[]; recipients: string[][]; attachmentRows: EmailAttachment[] };

/**
 * Writes a committing group's accepted emails, in its transaction: first the suppression check
 * of every recipient of the group (one query), which settles each email's suppressed recipients
 * and whether it is suppressed altogether; then the attachment and email rows (one multi-row
 * INSERT each) and the events. Checking here rather than while preparing the request costs the
 * group one statement instead of one per few requests, and no suppression committed before the
 * group can be missed.
 */
export function acceptedEmailsWriter(deps: {
  suppressions: SuppressionService;
  events: EventLog;
  usage: Pick<UsageLedger, 'record'>;
}) {
  return async (trx: Knex, groups: AcceptedEmails[]): Promise<void> => {
    const emails = groups.flatMap((g) => g.emails);
    const recipients = groups.flatMap((g) => g.recipients);
    const found = await deps.suppressions.suppressedWithin(
      trx,
      emails.map((email, i) => ({ teamId: email.teamId, emails: recipients[i]! })),
    );
    emails.forEach((email, i) => settleSuppression(email, [...found[i]!], recipients[i]!));

    const repository = new EmailRepository(trx);
    await repository.insertAttachments(groups.flatMap((g) => g.attachmentRows));
    await repository.insertMany(emails);
    // The usage ledger counts exactly the rows just written (suppressed ones too, as the quotas
    // do), in their transaction: one multi-row INSERT for the whole group.
    await deps.usage.record(trx, groups.flatMap(usageEntries));
    for (const email of emails) {
      for (const recipient of email.suppressedRecipients) {
        await deps.events.record(
          email.teamId,
          'email.suppressed',
          {
            ...emailEventData(email, [recipient]),
            suppressed: {
              reason: 'suppressed',
              type: 'suppression_list',
              message: `${recipient} is on the team's suppression list`,
              diagnosticCode: [],
            },
          },
          trx,
        );
      }
      if (email.lastEvent === 'scheduled')
        await deps.events.record(email.teamId, 'email.scheduled', emailEventData(email), trx);
    }
  };
}

/**
 * An email every distinct recipient of which is suppressed is accepted as suppressed, otherwise
 * as scheduled or queued. Set in full each time: a group that fails is written again item by
 * item, and the list may have changed in between.
 */
function settleSuppression(email: Email, suppressed: string[], recipients: string[]): void {
  email.suppressedRecipients = suppressed;
  const allSuppressed = suppressed.length === new Set(recipients.map((r) => r.toLowerCase())).size;
  email.lastEvent = allSuppressed ? 'suppressed' : email.scheduledAt ? 'scheduled' : 'queued';
}

/**
 * One ledger record per team, meter and month of a unit's accepted emails (a single send, a
 * batch, a broadcast page): transactional emails are those without a broadcast, as the quotas
 * count them (EmailRepository.countSince). `at` is the earliest email's created_at, so the
 * record falls in the same month as the rows it counts; `source_id` names the broadcast, or the
 * unit's first email.
 */
export function usageEntries(group: AcceptedEmails): UsageEntry[] {
  const entries = new Map<string, UsageEntry>();
  for (const email of group.emails) {
    const category = email.broadcastId === null ? 'transactional_emails' : 'marketing_emails';
    const key = `${email.teamId}|${category}|${usagePeriod(email.createdAt)}`;
    const entry = entries.get(key);
    if (entry) {
      entry.quantity += 1;
      if (email.createdAt < entry.at) entry.at = email.createdAt;
    } else
      entries.set(key, {
        teamId: email.teamId,
        category,
        quantity: 1,
        at: email.createdAt,
        sourceId: email.broadcastId ?? email.id,
      });
  }
  return [...entries.values()];
}
