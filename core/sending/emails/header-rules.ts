/**
 * Custom headers a sender may not set: the ones the appliance owns (addressing, identity, MIME,
 * signatures, trace and authentication results, delivery control, list unsubscribe).
 */
const REFUSED = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'date',
  'message-id',
  'return-path',
  'sender',
  'reply-to',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
  'content-id',
  'dkim-signature',
  'domainkey-signature',
  'received',
  'authentication-results',
  'received-spf',
  'resent-date',
  'resent-from',
  'resent-sender',
  'resent-to',
  'resent-cc',
  'resent-bcc',
  'resent-message-id',
  'delivered-to',
  'x-original-to',
  'envelope-to',
  'errors-to',
  'disposition-notification-to',
  'return-receipt-to',
]);
const REFUSED_PREFIXES = ['arc-', 'resent-', 'list-unsubscribe', 'content-', 'dkim-'];

/**
 * A header name longer than this cannot share a 78-character line with any value (RFC 5322
 * 2.1.1); valid syntax, but not carried: refused with 422 when the message is accepted.
 */
export const MAX_HEADER_NAME_LENGTH = 76;

export function uncarriableHeaderNames(headers: Record<string, string>): string[] {
  return Object.keys(headers).filter((name) => name.length > MAX_HEADER_NAME_LENGTH);
}

/** Whether the appliance writes this header itself (a caller's copy is refused, or dropped from a submitted message). */
export function isApplianceHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return REFUSED.has(lower) || REFUSED_PREFIXES.some((prefix) => lower.startsWith(prefix));
}

export function headerNameProblem(name: string): string | undefined {
  if (!/^[!-9;-~]+$/.test(name)) return 'is not a valid header name';
  if (isApplianceHeader(name)) return `${name} cannot be set: the appliance writes it`;
  return undefined;
}

/** Values may carry no control characters other than tab (no CR or LF: no header injection). */
export function headerValueProblem(value: string): string | undefined {
  return /[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)
    ? 'may not contain control characters other than tab'
    : undefined;
}

/** Custom headers together, names and values in UTF-8: far beyond any real use, well inside a header block receivers take. */
export const MAX_CUSTOM_HEADER_BYTES = 16 * 1024;

export function headersSizeProblem(headers: Record<string, string>): string | undefined {
  let bytes = 0;
  for (const [name, value] of Object.entries(headers))
    bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value, 'utf8');
  return bytes > MAX_CUSTOM_HEADER_BYTES
    ? `custom headers may take at most ${MAX_CUSTOM_HEADER_BYTES / 1024} KB together (names and values); these take ${bytes} bytes`
    : undefined;
}
