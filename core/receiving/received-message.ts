import { parseAddressHeader, simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { allFields, crlfLines, firstField, headerFields, type HeaderField } from './header-block.js';
import { isTextOnly } from './text-only-structure.js';

/** The fields of a received message, read once at receipt; bodies are read again on request. */
export type ReceivedHeaderFields = {
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string;
  messageId: string;
  attachments: Array<{
    filename: string | null;
    contentType: string;
    contentDisposition: string | null;
    contentId: string | null;
    size: number;
  }>;
};

/** Each address of a To/Cc/... header as `Name <address>` (or the address alone). */
function addressList(value: AddressObject | AddressObject[] | undefined): string[] {
  const objects = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return objects.flatMap((object) =>
    object.value.flatMap((entry) => {
      if (entry.group) return entry.group.map((member) => member.address ?? '').filter(Boolean);
      if (!entry.address) return [];
      return [entry.name ? `${entry.name} <${entry.address}>` : entry.address];
    }),
  );
}

const withoutBrackets = (id: string | undefined) => (id ?? '').replace(/^<|>$/g, '');

/**
 * Parses a raw message. `keepCidLinks` keeps `cid:` references in the HTML (html_format=cid);
 * otherwise mailparser inlines those images as data: URIs, as the SDK's default expects.
 */
export function parseReceived(raw: Buffer, options: { keepCidLinks?: boolean } = {}): Promise<ParsedMail> {
  return simpleParser(raw, { keepCidLinks: options.keepCidLinks ?? false, skipTextToHtml: true });
}

export function headerFieldsOf(mail: ParsedMail): ReceivedHeaderFields {
  return {
    from: addressList(mail.from)[0] ?? '',
    to: addressList(mail.to),
    cc: addressList(mail.cc),
    bcc: addressList(mail.bcc),
    replyTo: addressList(mail.replyTo),
    subject: mail.subject ?? '',
    messageId: withoutBrackets(mail.messageId),
    attachments: mail.attachments.map((attachment) => ({
      filename: attachment.filename ?? null,
      contentType: attachment.contentType,
      contentDisposition: attachment.contentDisposition ?? null,
      contentId: attachment.contentId ? withoutBrackets(attachment.contentId) : null,
      size: attachment.size,
    })),
  };
}

/**
 * The header fields at receipt. A plain message (7-bit CRLF headers without encoded words, text
 * parts only: most mail) is read from its header block and MIME structure, about a tenth of a
 * full parse; any other is parsed by mailparser. Both give the same fields (a test compares
 * them); bodies are parsed from the stored raw message when they are read.
 */
export async function readHeaderFields(raw: Buffer): Promise<ReceivedHeaderFields> {
  return plainHeaderFields(raw) ?? headerFieldsOf(await parseReceived(raw));
}

/** The fields of a plain message as mailparser gives them; null when the message is not plain. */
export function plainHeaderFields(raw: Buffer): ReceivedHeaderFields | null {
  const lines = crlfLines(raw.toString('latin1'));
  const blank = lines ? lines.indexOf('') : -1;
  if (!lines || blank < 1) return null;
  const fields = headerFields(lines.slice(0, blank));
  if (!fields || !isTextOnly(fields, lines.slice(blank + 1))) return null;
  const text = (key: string): string | null => {
    // mailparser skips an empty Subject or Message-ID and keeps the first that has a value.
    const value = fields.find((field) => field.key === key && field.value !== '')?.value ?? '';
    return /=\?|\x00/.test(value) ? null : value;
  };
  const subject = text('subject');
  const messageId = text('message-id');
  if (subject === null || messageId === null) return null;
  const from = firstField(fields, 'from');
  const replyTo = firstField(fields, 'reply-to');
  return {
    from: from ? (addresses([from])[0] ?? '') : '',
    to: addresses(allFields(fields, 'to')),
    cc: addresses(allFields(fields, 'cc')),
    bcc: addresses(allFields(fields, 'bcc')),
    replyTo: replyTo ? addresses([replyTo]) : [],
    subject,
    messageId: withoutBrackets(messageId),
    attachments: [],
  };
}

/** An address header's fields, parsed as mailparser parses them (its own public parser). */
const addresses = (fields: HeaderField[]) => addressList(fields.map((field) => parseAddressHeader(field.value)));

/** Header name (lower-case) to value, as the SDK's `headers` carries them; repeated headers joined. */
export function headerMapOf(mail: ParsedMail): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of mail.headerLines) {
    const separator = line.line.indexOf(':');
    const value = line.line
      .slice(separator + 1)
      .replace(/\r?\n[ \t]+/g, ' ')
      .trim();
    headers[line.key] = headers[line.key] === undefined ? value : `${headers[line.key]}, ${value}`;
  }
  return headers;
}
