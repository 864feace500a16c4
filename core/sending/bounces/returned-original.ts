import { fieldRecord, messageIdOf, parseFields, splitHead, type HeaderField, type MimePart } from './report-mime.js';

/**
 * The original message a report returns, or its headers: they carry what the caller matches
 * the report with (Message-ID, X-Mailroom-Email-Id). Reports attach it as a part; text-only
 * bounces quote it below a line of their own wording.
 */

export type ReturnedOriginal = { headers: Record<string, string>; messageId: string | null };

/** RFC 3464 / RFC 5965 attach the original whole, or only its headers; RFC 6532/6533 the UTF-8 forms. */
export const ORIGINAL_TYPES: ReadonlySet<string> = new Set([
  'message/rfc822',
  'message/global',
  'text/rfc822-headers',
  'message/global-headers',
]);

/** Lines below which text-only bounces quote the original (or its headers). */
const COPY_MARKERS: readonly RegExp[] = [
  // Exim
  /^-+ This is a copy of the message(?:, including all the headers|'s headers)\. -+$/m,
  // qmail, Yahoo
  /^--- Below this line is a copy of the message\.$/m,
  // Exchange
  /^Original message headers:$/m,
  // Gmail, Sendmail and others: '----- Original message -----', '----- Original message follows -----'
  /^[ \t]*-+ ?(?:Original|Returned|Undelivered) message(?: headers)?(?: follows)? ?-+$/im,
];

/** Where the quoted original starts in a text-only bounce: the human text ends there. */
export function copyMarkerIndex(text: string): number {
  const found = COPY_MARKERS.map((marker) => marker.exec(text)?.index ?? -1).filter((index) => index >= 0);
  return found.length > 0 ? Math.min(...found) : -1;
}

/** The header block after the first copy marker of a text-only bounce (leading empty lines skipped). */
function quotedHeaders(text: string): HeaderField[] {
  for (const marker of COPY_MARKERS) {
    const match = marker.exec(text);
    if (!match) continue;
    const fields = headerBlock(text.slice(match.index + match[0].length));
    if (fields.length > 0) return fields;
  }
  return [];
}

/** The fields of a header block at the start of a text; empty lines before it are skipped. */
export function headerBlock(text: string): HeaderField[] {
  return parseFields(splitHead(text.replace(/^\s+/, '')).head);
}

/**
 * The original among the parts (from index `from` on), else quoted in `text`. A repeated
 * header keeps its first value (the topmost Received, the one Message-ID).
 */
export function returnedOriginal(parts: readonly MimePart[], from: number, text: string): ReturnedOriginal {
  const part = parts.slice(from).find((candidate) => ORIGINAL_TYPES.has(candidate.type));
  return originalOf(part ? headerBlock(part.text) : quotedHeaders(text));
}

export function originalOf(fields: readonly HeaderField[]): ReturnedOriginal {
  const headers = fieldRecord(fields);
  return { headers, messageId: messageIdOf(headers['message-id']) };
}
