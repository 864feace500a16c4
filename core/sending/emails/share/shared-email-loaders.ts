import { NotFoundError } from '../../../../lib/errors.js';
import type { EmailService } from '../email.service.js';
import type { SharedEmail, SharedEmailLoader } from './shared-email.types.js';

/** Not found is "no such email" (undefined); any other failure is a real one and propagates. */
async function orUndefined<T>(work: Promise<T>): Promise<T | undefined> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

/** A sent email as the share page shows it: the bodies from the spool, the attachments' names. */
export function sentEmailLoader(emails: EmailService): SharedEmailLoader {
  return async (teamId, emailId) => {
    const found = await orUndefined(emails.get(teamId, emailId));
    if (!found) return undefined;
    const { email, bodies } = found;
    const attachments = await emails.attachments(teamId, email.id);
    return {
      teamId,
      from: email.fromHeader,
      to: email.to,
      cc: email.cc ?? [],
      subject: email.subject,
      date: email.createdAt,
      html: bodies.html,
      text: bodies.text,
      attachmentNames: attachments.map(({ attachment }) => attachment.filename ?? 'unnamed attachment'),
    } satisfies SharedEmail;
  };
}

/**
 * The part of the receiving group's read service the share page needs, declared here by shape:
 * receiving already depends on sending, so sending must not import receiving back.
 */
export type ReceivedEmailReader = {
  get(
    teamId: string,
    id: string,
  ): Promise<{
    email: {
      from: string;
      to: string[];
      cc: string[];
      subject: string;
      createdAt: Date;
      attachments: Array<{ filename: string | null }>;
    };
    html: string | null;
    text: string | null;
  }>;
};

/** A received email as the share page shows it, parsed from its raw source (inline images stay data: URIs). */
export function receivedEmailLoader(received: ReceivedEmailReader): SharedEmailLoader {
  return async (teamId, emailId) => {
    const found = await orUndefined(received.get(teamId, emailId));
    if (!found) return undefined;
    const { email } = found;
    return {
      teamId,
      from: email.from,
      to: email.to,
      cc: email.cc,
      subject: email.subject,
      date: email.createdAt,
      html: found.html,
      text: found.text,
      attachmentNames: email.attachments.map((a) => a.filename ?? 'unnamed attachment'),
    } satisfies SharedEmail;
  };
}
