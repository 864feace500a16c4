import { classifyReply } from './bounce-classifier.js';
import type { DeliveryVerdict, ParsedReply } from './bounce.types.js';
import { detectFormat, noticeAction, reportingHostIn, textEntries } from './delivery-report-formats.js';
import { parseDeliveryStatus, untyped, type DeliveryStatus, type StatusEntry } from './delivery-status.js';
import { parseReply } from './reply-parser.js';
import { decodeWords, fieldValue, parseMime, plainText, type MimeMessage, type MimePart } from './report-mime.js';
import type { DeliveryReport, RecipientAction, ReportedRecipient, ReportFormat } from './report.types.js';
import { copyMarkerIndex, returnedOriginal } from './returned-original.js';

/**
 * Reads mail arriving at the bounce address: an RFC 3464 report (or RFC 6533's UTF-8 form),
 * or a bounce in an MTA's own wording, into one report per message with a verdict per
 * recipient from the same classifier the outbound queue uses. Pure: no I/O.
 */

export type { DeliveryReport, RecipientAction, ReportedRecipient, ReportFormat } from './report.types.js';

const STATUS_TYPES: ReadonlySet<string> = new Set(['message/delivery-status', 'message/global-delivery-status']);

/** Who sends bounces, and how they are titled, for a bounce in wording no reader knows. */
const BOUNCE_FROM = /mailer-daemon|mail delivery (?:subsystem|system)/i;
const BOUNCE_SUBJECT =
  /^(?:Undeliver|Returned mail|Mail delivery failed|Delivery Status Notification|Delivery (?:failure|failed|delayed|notification)|failure notice|Non[- ]?delivery|Mail System Error|Message not delivered|Delayed Mail|Warning: message \S+ delayed)/i;

/** The reply class a report implies when it quotes no SMTP reply. */
const CODE_BY_CLASS: Record<string, number> = { '2': 250, '4': 450, '5': 550 };
const CODE_BY_ACTION: Record<RecipientAction, number> = {
  failed: 550,
  delayed: 450,
  delivered: 250,
  relayed: 250,
  expanded: 250,
};

/** The SMTP reply a diagnostic holds ('smtp; 550 5.1.1 ...'), or null ('X-Postfix; host not found'). */
function smtpReplyOf(diagnostic: string | null): ParsedReply | null {
  if (!diagnostic) return null;
  const reply = parseReply(untyped(diagnostic));
  return reply.code >= 200 && reply.code <= 599 ? reply : null;
}

/** A delayed delivery is being retried: whatever its last reply said, the verdict is temporary. */
function asTemporary(reply: ParsedReply): ParsedReply {
  const code = reply.code >= 500 ? reply.code - 100 : reply.code >= 400 ? reply.code : 450;
  return { code, enhanced: reply.enhanced?.replace(/^[25]\./, '4.') ?? null, text: reply.text };
}

/**
 * The verdict from the diagnostic's SMTP reply (its enhanced code completed from the Status
 * field), else from a reply made of the status code and the diagnostic's text.
 */
function verdictOf(entry: StatusEntry, smtp: ParsedReply | null): DeliveryVerdict {
  let reply: ParsedReply = smtp
    ? { ...smtp, enhanced: smtp.enhanced ?? entry.status }
    : {
        code: (entry.status && CODE_BY_CLASS[entry.status[0]!]) || CODE_BY_ACTION[entry.action],
        enhanced: entry.status,
        text: entry.diagnostic ? untyped(entry.diagnostic) : '',
      };
  if (entry.action === 'delayed') reply = asTemporary(reply);
  return classifyReply({ code: reply.code, enhanced: reply.enhanced ?? undefined, text: reply.text });
}

/** A report without a Status field (the text-only formats) takes the reply's enhanced code. */
function reportedRecipient(entry: StatusEntry): ReportedRecipient {
  const smtp = smtpReplyOf(entry.diagnostic);
  const completed = { ...entry, status: entry.status ?? smtp?.enhanced ?? null };
  return { ...completed, verdict: verdictOf(completed, smtp) };
}

/** The human-readable part: the first text/plain (else HTML) before the machine-readable one. */
function humanPart(parts: readonly MimePart[], statusIndex: number): MimePart | undefined {
  const before = statusIndex < 0 ? parts : parts.slice(0, statusIndex);
  return before.find((part) => part.type === 'text/plain') ?? before.find((part) => part.type === 'text/html');
}

/** The human text without the original a text-only bounce quotes below it. */
function withoutCopy(text: string): string {
  const copy = copyMarkerIndex(text);
  return copy < 0 ? text : text.slice(0, copy);
}

function looksLikeBounce(from: string, subject: string): boolean {
  return BOUNCE_FROM.test(from) || BOUNCE_SUBJECT.test(subject.trim());
}

type Reading = { format: ReportFormat; entries: StatusEntry[] };

/**
 * Who wrote the report and what it says per recipient: the machine-readable part when there
 * is one, else the text. A message with neither a report part, nor an MTA's wording, nor a
 * bounce's sender or subject is no bounce (an auto-reply, ordinary mail): its text is not
 * searched for addresses, which ordinary mail has plenty of.
 */
function readRecipients(
  message: MimeMessage,
  status: DeliveryStatus | null,
  human: string,
  statusText: string,
): Reading | null {
  const from = decodeWords(fieldValue(message.headers, 'from') ?? '');
  const subject = decodeWords(fieldValue(message.headers, 'subject') ?? '');
  const cues = [from, subject, human, statusText].join('\n');
  const vendor = detectFormat(cues);
  const format = vendor ?? (status ? 'rfc3464' : 'unknown');
  if (status && status.entries.length > 0) return { format, entries: status.entries };
  if (!status && !vendor && !looksLikeBounce(from, subject)) return null;
  return { format, entries: textEntries(format, human, noticeAction(cues)) };
}

function readReport(message: MimeMessage): DeliveryReport | undefined {
  const statusIndex = message.parts.findIndex((part) => STATUS_TYPES.has(part.type));
  const statusText = statusIndex < 0 ? '' : message.parts[statusIndex]!.text;
  const status = statusIndex < 0 ? null : parseDeliveryStatus(statusText);
  const humanSource = humanPart(message.parts, statusIndex);
  const fullText = humanSource ? plainText(humanSource) : '';
  const human = withoutCopy(fullText);
  const reading = readRecipients(message, status, human, statusText);
  if (!reading) return undefined;
  const original = returnedOriginal(message.parts, statusIndex + 1, fullText);
  return {
    format: reading.format,
    recipients: reading.entries.map(reportedRecipient),
    originalMessageId: original.messageId ?? status?.originalMessageId ?? null,
    originalHeaders: original.headers,
    envelopeId: status?.envelopeId ?? null,
    reportingMta: status?.reportingMta ?? reportingHostIn(human),
  };
}

/**
 * The report a bounce carries, or undefined when the message is no bounce. A delay notice is
 * a report (action delayed). Garbage never throws: it reads as undefined, or as a report of
 * format 'unknown' without recipients when it looks like a bounce.
 */
export async function parseDeliveryReport(raw: Buffer | string): Promise<DeliveryReport | undefined> {
  try {
    return readReport(parseMime(raw));
  } catch {
    // The readers are bounded and total; this guards the caller's loop against a reader bug.
    return undefined;
  }
}
