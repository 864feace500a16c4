import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';

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
