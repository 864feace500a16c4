import { simpleParser, type AddressObject, type EmailAddress, type ParsedMail } from 'mailparser';
import { UnprocessableValidationError } from '../../../lib/errors.js';
import { MIME_LIMIT_OPTIONS, mimeLimitExceeded } from '../../../lib/mail/mime-limits.js';
import { isApplianceHeader } from './header-rules.js';

/** Headers a submitted message carries that the appliance writes itself (beside those the API refuses). */
const COMPOSED_HEADERS = new Set(['x-mailer', 'user-agent']);

/** Whether the raw header block (up to the first empty line) has bytes outside ASCII. */
export function hasEightBitHeaders(raw: Buffer): boolean {
  const end = raw.indexOf('\r\n\r\n');
  const headers = end === -1 ? raw : raw.subarray(0, end);
  for (const byte of headers) if (byte >= 0x80) return true;
  return false;
}

const quoted = (name: string) => `"${name.replace(/(["\\])/g, '\\$1')}"`;
const mailboxText = (mailbox: EmailAddress) =>
  mailbox.name ? `${quoted(mailbox.name)} <${mailbox.address}>` : mailbox.address!;

/** Every mailbox of an address header (groups flattened), as `"Name" <address>` strings. */
function mailboxes(header: AddressObject | AddressObject[] | undefined): string[] {
  const objects = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const flat = objects.flatMap((object) => object.value.flatMap((entry) => (entry.group ? entry.group : [entry])));
  return flat.filter((entry) => entry.address).map(mailboxText);
}

/** C0 controls (but TAB) and DEL: refused in a decoded header value, as POST /emails refuses them in custom headers. */
const CONTROL_CHARACTER = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** The first header whose decoded text (the Subject, an address's display name) has a control character. */
function headerWithControlCharacter(parsed: ParsedMail): string | undefined {
  if (parsed.subject !== undefined && CONTROL_CHARACTER.test(parsed.subject)) return 'Subject';
  const named: Array<[string, AddressObject | AddressObject[] | undefined]> = [
    ['From', parsed.from],
    ['To', parsed.to],
    ['Cc', parsed.cc],
    ['Reply-To', parsed.replyTo],
  ];
  for (const [header, value] of named) {
    const objects = value === undefined ? [] : Array.isArray(value) ? value : [value];
    const entries = objects.flatMap((object) => object.value.flatMap((entry) => [entry, ...(entry.group ?? [])]));
    if (entries.some((entry) => CONTROL_CHARACTER.test(entry.name ?? ''))) return header;
  }
  return undefined;
}

/** The message parsed; one the parser refuses for its structure is the sender's to fix (422, 550 5.6.0). */
async function parse(raw: Buffer): Promise<ParsedMail> {
  try {
    return await simpleParser(raw, {
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipImageLinks: true,
      keepCidLinks: true,
      ...MIME_LIMIT_OPTIONS,
    });
  } catch (err) {
    const reason = mimeLimitExceeded(err);
    if (!reason) throw err;
    throw new UnprocessableValidationError(`The message cannot be accepted: ${reason}`, {
      errors: [{ path: 'message', message: reason }],
    });
  }
}

const addressOf = (mailbox: string) => (/<([^<>]+)>$/.exec(mailbox)?.[1] ?? mailbox).toLowerCase();

/**
 * A message submitted over SMTP as the body `POST /emails` takes, so both go through the same
 * validation and acceptance: From, To, Cc and Reply-To from the headers, Bcc from the envelope
 * (recipients the headers do not name), subject, bodies, attachments (inline ones keep their
 * Content-ID) and the caller's own headers (X-*, In-Reply-To, References...); the headers the
 * appliance writes itself (those POST /emails refuses: addressing, MIME, trace, signatures,
 * List-Unsubscribe) and the client's X-Mailer and User-Agent are dropped, not refused: a mail
 * client or a relay adds them to every message. Every To and Cc address must be an envelope recipient:
 * the appliance delivers to the headers' addresses, so a header naming someone the client did
 * not submit to would be a delivery the client did not ask for (422, mapped to 550 5.6.0).
 */
export async function submittedMessageToSendInput(
  raw: Buffer,
  envelopeRecipients: string[],
): Promise<Record<string, unknown>> {
  const parsed = await parse(raw);
  const controlled = headerWithControlCharacter(parsed);
  if (controlled) {
    const problem = 'may not contain control characters other than tab (raw or encoded)';
    throw new UnprocessableValidationError(`The ${controlled} header ${problem}`, {
      errors: [{ path: controlled === 'Subject' ? 'subject' : controlled.toLowerCase(), message: problem }],
    });
  }
  const from = mailboxes(parsed.from);
  const to = mailboxes(parsed.to);
  const cc = mailboxes(parsed.cc);
  const envelope = new Set(envelopeRecipients.map((address) => address.toLowerCase()));
  const strangers = [...to, ...cc].filter((mailbox) => !envelope.has(addressOf(mailbox)));
  if (strangers.length > 0) {
    throw new UnprocessableValidationError(
      `The To and Cc headers name addresses that are not recipients of this submission: ${strangers.map(addressOf).join(', ')}`,
      {
        errors: strangers.map((mailbox) => ({
          path: 'to',
          message: `${addressOf(mailbox)} is not an envelope recipient`,
        })),
      },
    );
  }
  const named = new Set([...to, ...cc].map(addressOf));
  const bcc = envelopeRecipients.filter((address) => !named.has(address.toLowerCase()));
  const headers: Record<string, string> = {};
  for (const line of parsed.headerLines) {
    if (COMPOSED_HEADERS.has(line.key) || isApplianceHeader(line.key)) continue;
    const value = line.line
      .slice(line.line.indexOf(':') + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
    headers[line.line.slice(0, line.line.indexOf(':')).trim()] = value;
  }
  const body: Record<string, unknown> = {
    from: from.length === 1 ? from[0] : from.length === 0 ? undefined : from.join(', '),
    to: to.length > 0 ? to : bcc.length > 0 ? undefined : [],
    subject: parsed.subject,
  };
  // With no To header (undisclosed recipients) the envelope's first recipient is the To.
  if (to.length === 0 && bcc.length > 0) body.to = [bcc.shift()!];
  if (cc.length > 0) body.cc = cc;
  if (bcc.length > 0) body.bcc = bcc;
  const replyTo = mailboxes(parsed.replyTo);
  if (replyTo.length > 0) body.reply_to = replyTo;
  if (typeof parsed.html === 'string') body.html = parsed.html;
  if (parsed.text !== undefined) body.text = parsed.text;
  if (Object.keys(headers).length > 0) body.headers = headers;
  if (parsed.attachments.length > 0) {
    body.attachments = parsed.attachments.map((attachment) => ({
      filename: attachment.filename,
      content: attachment.content.toString('base64'),
      content_type: attachment.contentType,
      ...(attachment.contentId ? { content_id: attachment.contentId.replace(/^<|>$/g, '') } : {}),
    }));
  }
  return body;
}
