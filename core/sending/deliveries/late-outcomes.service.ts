import type { Knex } from 'knex';
import { normalizeEmail } from '../../shared/addresses/email-address.js';
import { parseMailbox } from '../../shared/addresses/mailbox.js';
import type { BounceDetails } from '../bounces/bounce.types.js';
import type { EmailTransitions } from '../emails/email-transitions.js';
import type { Email } from '../emails/email.types.js';
import type { EmailRepository } from '../emails/email.repository.js';
import type { SuppressionService } from '../suppressions/suppression.service.js';

/**
 * Called for every complaint, in its transaction: the audience (contacts, a later issue) plugs
 * in here to unsubscribe the contact who complained.
 */
export type ComplaintHook = (
  trx: Knex,
  complaint: { teamId: string; address: string; emailId: string },
) => Promise<void>;

/**
 * Outcomes that arrive after the receiving server said 250: a bounce report (DSN) and a
 * complaint (ARF). Each names an email we sent; only that email's own recipients are acted on,
 * so a forged report cannot suppress an arbitrary address.
 */
export class LateOutcomes {
  private complaintHooks: ComplaintHook[] = [];

  constructor(
    private readonly deps: {
      emails: EmailRepository;
      transitions: EmailTransitions;
      suppressions: SuppressionService;
    },
  ) {}

  onComplaint(hook: ComplaintHook): void {
    this.complaintHooks.push(hook);
  }

  async findEmail(id: string): Promise<Email | undefined> {
    return this.deps.emails.findById(id);
  }

  /** Every address the email was sent to (to, cc, bcc), each once. */
  allRecipients(email: Email): string[] {
    const sentTo = [...email.to, ...(email.cc ?? []), ...(email.bcc ?? [])]
      .map((value) => parseMailbox(value)?.address)
      .filter((address): address is string => Boolean(address));
    return [...new Map(sentTo.map((address) => [normalizeEmail(address), address])).values()];
  }

  /** The addresses among `addresses` that the email was sent to, as the email wrote them. */
  recipientsOf(email: Email, addresses: string[]): string[] {
    const wanted = new Set(addresses.map(normalizeEmail));
    return this.allRecipients(email).filter((address) => wanted.has(normalizeEmail(address)));
  }

  /** email.bounced for these recipients; a Permanent bounce suppresses them (origin bounce), in `trx`. */
  async bounced(trx: Knex.Transaction, email: Email, recipients: string[], bounce: BounceDetails): Promise<void> {
    if (recipients.length === 0) return;
    await this.deps.transitions.record(trx, email, 'email.bounced', { bounce }, recipients);
    if (bounce.type === 'Permanent')
      await this.deps.suppressions.addMany(email.teamId, recipients, 'bounce', email.id, trx);
  }

  /** email.delivery_delayed: the receiving side reported a delay after accepting the message. */
  async delayed(trx: Knex.Transaction, email: Email, recipients: string[], delayType: string): Promise<void> {
    if (recipients.length === 0) return;
    const delay = { type: delayType, expirationTime: '', delayedRecipients: recipients };
    await this.deps.transitions.record(trx, email, 'email.delivery_delayed', { delay }, recipients);
  }

  /** email.complained for the recipient, who is suppressed (origin complaint), in `trx`. */
  async complained(trx: Knex.Transaction, email: Email, recipient: string): Promise<void> {
    await this.deps.transitions.record(trx, email, 'email.complained', {}, [recipient]);
    await this.deps.suppressions.addMany(email.teamId, [recipient], 'complaint', email.id, trx);
    for (const hook of this.complaintHooks)
      await hook(trx, { teamId: email.teamId, address: recipient, emailId: email.id });
  }
}
