import {
  fieldBlocks,
  fieldValue,
  fieldValues,
  normalizeAddress,
  parseFields,
  parseMime,
  type HeaderField,
  type MimeMessage,
  type MimePart,
} from './report-mime.js';
import type { FeedbackReport } from './report.types.js';
import { headerBlock, ORIGINAL_TYPES, originalOf, type ReturnedOriginal } from './returned-original.js';

/**
 * Reads mail arriving at the feedback-loop address: an RFC 5965 abuse report (ARF), in its
 * standard form (multipart/report; report-type=feedback-report: human text,
 * message/feedback-report, the original as message/rfc822 or text/rfc822-headers) and the
 * common departures from it (the fields or the original sent as text/plain, any case of the
 * report type). Pure: no I/O.
 */

export type { FeedbackReport } from './report.types.js';

/**
 * Local parts providers put in place of a redacted one (RFC 6590 leaves the choice to them):
 * a run of one mask character, `redacted`, `unknown`, or a partial mask (`j***n`).
 */
const REDACTED_LOCAL = /^(?:x+|\*+|#+|-+|\[?redacted\]?|unknown)$|\*\*/i;
/** Fields that show a text/plain part to be a quoted original rather than prose. */
const ORIGINAL_FIELDS: ReadonlySet<string> = new Set(['from', 'to', 'subject', 'message-id', 'date', 'received']);

type FeedbackPart = { index: number; fields: HeaderField[] };

/** The feedback fields: message/feedback-report, else a text/plain part of a multipart made of them. */
function feedbackPart(message: MimeMessage): FeedbackPart | null {
  const index = message.parts.findIndex((part) => part.type === 'message/feedback-report');
  if (index >= 0) return { index, fields: parseFields(message.parts[index]!.text) };
  if (!message.type.startsWith('multipart/')) return null;
  for (const [plainIndex, part] of message.parts.entries()) {
    if (part.type !== 'text/plain') continue;
    const fields = fieldBlocks(part.text).find((block) => block.some((field) => field.name === 'feedback-type'));
    if (fields) return { index: plainIndex, fields };
  }
  return null;
}

const quotesHeaders = (part: MimePart) =>
  part.type === 'text/plain' && (fieldBlocks(part.text, 1)[0] ?? []).some((field) => ORIGINAL_FIELDS.has(field.name));

/** The original after the feedback part: attached as a message or its headers, else quoted as text/plain. */
function attachedOriginal(parts: readonly MimePart[], feedbackIndex: number): ReturnedOriginal {
  const later = parts.slice(feedbackIndex + 1);
  const part = later.find((candidate) => ORIGINAL_TYPES.has(candidate.type)) ?? later.find(quotesHeaders);
  return originalOf(part ? headerBlock(part.text) : []);
}

function unredacted(address: string | null): string | null {
  if (!address) return null;
  return REDACTED_LOCAL.test(address.slice(0, address.lastIndexOf('@'))) ? null : address;
}

/** The one address of an address header (a To naming several people says nothing about who complained). */
function soleAddress(value: string | undefined): string | null {
  // Bounded: the address pattern backtracks over a long run of characters without an '@'.
  const addresses = (value ?? '').slice(0, 2048).match(/[^\s<>",;:()@]+@[^\s<>",;:()@]+/g) ?? [];
  return addresses.length === 1 ? normalizeAddress(addresses[0]!) : null;
}

/**
 * Every clue to who complained, best first, redacted addresses skipped: Microsoft's
 * X-HmXmrOriginalRecipient (the Outlook.com mailbox, which a forward can make differ from To),
 * the Original-Rcpt-To values, the original's To when it names one address. The first is the
 * complainant.
 */
function recipientClues(rcptTo: string[], original: Record<string, string>): string[] {
  const microsoft = original['x-hmxmroriginalrecipient'];
  const clues = [microsoft ? normalizeAddress(microsoft) : null, ...rcptTo, soleAddress(original['to'])]
    .map(unredacted)
    .filter((address): address is string => address !== null);
  return clues.filter((address, i) => clues.findIndex((other) => other.toLowerCase() === address.toLowerCase()) === i);
}

function readFeedback(message: MimeMessage): FeedbackReport | undefined {
  const feedback = feedbackPart(message);
  const feedbackType = fieldValue(feedback?.fields ?? [], 'feedback-type')
    ?.split(/[\s;]/)[0]
    ?.toLowerCase();
  if (!feedback || !feedbackType) return undefined;
  const fields = feedback.fields;
  const original = attachedOriginal(message.parts, feedback.index);
  const rcptTo = fieldValues(fields, 'original-rcpt-to')
    .flatMap((value) => value.split(','))
    .flatMap((value) => normalizeAddress(value) ?? []);
  const clues = recipientClues(rcptTo, original.headers);
  // Return-Path is written from MAIL FROM at delivery: the same address when the field is absent.
  const mailFrom = fieldValue(fields, 'original-mail-from') ?? original.headers['return-path'] ?? '';
  return {
    feedbackType,
    originalRcptTo: rcptTo,
    originalMailFrom: normalizeAddress(mailFrom),
    originalMessageId: original.messageId,
    originalHeaders: original.headers,
    originalRecipient: clues[0] ?? null,
    namedRecipients: clues,
    arrivalDate: fieldValue(fields, 'arrival-date') ?? fieldValue(fields, 'received-date') ?? null,
    reportingUserAgent: fieldValue(fields, 'user-agent') ?? null,
  };
}

/** The abuse report a message carries, or undefined when it is no ARF report. Never throws. */
export async function parseFeedbackReport(raw: Buffer | string): Promise<FeedbackReport | undefined> {
  try {
    return readFeedback(parseMime(raw));
  } catch {
    // The readers are bounded and total; this guards the caller's loop against a reader bug.
    return undefined;
  }
}
