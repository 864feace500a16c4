import MailComposer from 'nodemailer/lib/mail-composer';
import type MimeNode from 'nodemailer/lib/mime-node';
import { pooledRandomBytes } from '../../../lib/crypto/random-pool.js';
import { renderMimeTree } from './mime-render.js';
import { MAX_LINE_OCTETS } from './header-folding.js';
import { longestLine } from '../../../lib/mail/line-endings.js';
import { UnprocessableValidationError } from '../../../lib/errors.js';
import type { Mailbox } from '../../shared/addresses/mailbox.js';

export type ComposeInput = {
  from: Mailbox;
  to: Mailbox[];
  cc: Mailbox[];
  replyTo: Mailbox[];
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  attachments: Array<{ filename?: string; content: Buffer; contentType?: string; contentId?: string }>;
  messageId: string;
  date: Date;
};

export const address = (mailbox: Mailbox) => ({ name: mailbox.name ?? '', address: mailbox.address });

/**
 * Renders the message with nodemailer's MIME composer. Only parsed values go in (never the raw
 * header strings), attachments only as buffers, and file and URL access are off: a `path` can
 * never make the composer read a local file or fetch a URL. Bcc is never a header. The compiled
 * tree is serialized without streams (see mime-render.ts); the same bytes as its build().
 */
export async function composeMime(input: ComposeInput): Promise<Buffer> {
  const root = compileMime(input);
  const mime = renderMimeTree(root) ?? (await root.build());
  assertCarriable(mime);
  return mime;
}

/** The compiled nodemailer tree of the message, as composeMime renders it (mime-template.ts reuses one). */
export function compileMime(input: ComposeInput): MimeNode {
  const composer = new MailComposer({
    from: address(input.from),
    to: input.to.map(address),
    cc: input.cc.length > 0 ? input.cc.map(address) : undefined,
    replyTo: input.replyTo.length > 0 ? input.replyTo.map(address) : undefined,
    subject: input.subject,
    html: input.html ?? undefined,
    text: input.text ?? undefined,
    headers: input.headers,
    attachments: input.attachments.map((a) => ({
      filename: a.filename,
      content: a.content,
      contentType: a.contentType,
      cid: a.contentId,
    })),
    messageId: input.messageId,
    date: input.date,
    // Random like nodemailer's own, but from a pool: it would ask the system once per MIME part.
    baseBoundary: Buffer.from(pooledRandomBytes(8)).toString('hex'),
    disableFileAccess: true,
    disableUrlAccess: true,
    xMailer: false,
  });
  return composer.compile();
}

/** Whatever got past the composer and the folding: a message that cannot be carried is refused, never sent. */
export function assertCarriable(mime: Buffer): void {
  const longest = longestLine(mime);
  if (longest > MAX_LINE_OCTETS) {
    throw new UnprocessableValidationError(
      `The message would have a line of ${longest} octets; at most ${MAX_LINE_OCTETS} can be carried`,
      { errors: [{ path: 'headers', message: `a line of ${longest} octets cannot be carried (RFC 5322: 998)` }] },
    );
  }
}
