import type { StatusEntry } from './delivery-status.js';
import { diagnosticCode, parseReply } from './reply-parser.js';
import { normalizeAddress } from './report-mime.js';
import type { RecipientAction, ReportFormat } from './report.types.js';

/**
 * Bounces in the MTAs' own wording, for reports without a machine-readable part (qmail, Exim,
 * Yahoo, older Exchange and Gmail, a Postfix report whose delivery-status part was stripped),
 * and the markers that tell who wrote a report. Each reader returns what the text says about
 * each recipient; the SMTP reply, when the text quotes one, becomes an 'smtp; ...' diagnostic.
 */

export type VendorFormat = Exclude<ReportFormat, 'rfc3464' | 'unknown'>;

/**
 * Tested in order against From, Subject, the human-readable text and the delivery-status part
 * (never the returned original, which can say anything). Yahoo's wording is a qmail variant
 * and goes before qmail's.
 */
const FORMAT_MARKERS: ReadonlyArray<{ format: VendorFormat; marker: RegExp }> = [
  { format: 'yahoo', marker: /Sorry, we were unable to deliver your message to the following address/i },
  { format: 'qmail', marker: /This is the qmail-send program/i },
  { format: 'exim', marker: /This message was created automatically by mail delivery software/i },
  { format: 'postfix', marker: /This is the mail system at host|^X-Postfix-(?:Queue-ID|Sender):/im },
  {
    format: 'exchange',
    marker:
      /Delivery has failed to these recipients or groups|Delivery is delayed to these recipients or groups|Remote Server returned '|Diagnostic information for administrators/i,
  },
  {
    format: 'gmail',
    marker:
      /Delivery Status Notification \((?:Failure|Delay)\)|The response from the remote server was:|Google tried to deliver your message/i,
  },
];

/** Wording of the notices that a message is still being retried (RFC 3464 action delayed). */
const DELAY_MARKER =
  /has not yet been delivered|delivery (?:has been |is )?delayed|Delayed Mail|still being retried|temporary problem delivering|Delivery incomplete|Delivery Status Notification \(Delay\)|Warning: message \S+ delayed/i;

const REPORTING_HOST =
  /(?:This is the (?:qmail-send program|mail system) at (?:host )?|Generating server: )([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*)/;

export function detectFormat(cues: string): VendorFormat | undefined {
  return FORMAT_MARKERS.find(({ marker }) => marker.test(cues))?.format;
}

export function noticeAction(cues: string): RecipientAction {
  return DELAY_MARKER.test(cues) ? 'delayed' : 'failed';
}

/** The host that wrote a text-only bounce, when its wording names it. */
export function reportingHostIn(text: string): string | null {
  return REPORTING_HOST.exec(text)?.[1] ?? null;
}

// A reply code at the start of a line or after a colon ('said: 550 ...', 'RCPT TO:<x>:\n 550 ...').
const REPLY_START = /(?:^|:)[ \t]*(?=[245]\d\d(?:[ -]|$))/m;
// Where a quoted reply ends: an empty line, qmail's 'Giving up on', Postfix's '(in reply to ...)'.
const REPLY_END = /\n[ \t]*\n|\n[ \t]*Giving up on |\(in reply to [^()]*\)/;
const QMAIL_STATUS = /\(#([245]\.\d{1,3}\.\d{1,3})\)/;

/** The SMTP reply quoted in a recipient's detail lines, lines trimmed, or null. */
function smtpReplyIn(detail: string): string | null {
  const start = REPLY_START.exec(detail);
  if (!start) return null;
  const rest = detail.slice(start.index + start[0].length);
  const end = REPLY_END.exec(rest);
  return (end ? rest.slice(0, end.index) : rest)
    .split('\n')
    .map((line) => line.trim())
    .join('\n');
}

type Block = { address: string; detail: string[] };

function entryOf(block: Block, action: RecipientAction): StatusEntry | null {
  const recipient = normalizeAddress(block.address);
  if (!recipient) return null;
  const detail = block.detail.join('\n');
  const reply = smtpReplyIn(detail);
  const text = detail.replace(/\s+/g, ' ').trim();
  // A quoted reply in the classifier's own 'smtp; <code> <enhanced> <text>' form, lines joined.
  const diagnostic = reply !== null ? diagnosticCode(parseReply(reply)) : text === '' ? null : text;
  return { recipient, action, status: QMAIL_STATUS.exec(detail)?.[1] ?? null, diagnostic };
}

const entriesOf = (blocks: Block[], action: RecipientAction) => blocks.flatMap((block) => entryOf(block, action) ?? []);

/** The text up to its first empty line, leading empty lines skipped. */
function paragraph(text: string): string {
  const trimmed = text.replace(/^\s+/, '');
  const end = trimmed.search(/\n[ \t]*\n/);
  return end < 0 ? trimmed : trimmed.slice(0, end);
}

// Address patterns exclude '@' from both halves: with it, a line of many '@' backtracks quadratically.
const ANGLE_ADDRESS = /^<([^<>\s@]+@[^<>\s@]+)>(?:[ \t]*\(expanded from <([^<>\s@]+@[^<>\s@]+)>\))?:[ \t]*(.*)$/;

/**
 * Postfix, qmail and Yahoo: '<address>:' starts a recipient, its details follow until an empty
 * line. Postfix's '(expanded from <alias>)' names the address we sent to: that one is kept.
 */
function angleBlocks(text: string, action: RecipientAction): StatusEntry[] {
  const blocks: Block[] = [];
  let open = false;
  for (const line of text.split('\n')) {
    const match = ANGLE_ADDRESS.exec(line);
    if (match) {
      blocks.push({ address: match[2] ?? match[1]!, detail: [match[3]!] });
      open = true;
    } else if (line.trim() === '') open = false;
    else if (open) blocks.at(-1)!.detail.push(line);
  }
  return entriesOf(blocks, action);
}

const EXIM_SECTION =
  /(?:following address(?:\(es\)|es)? failed|address(?:es)? to which the message has not yet been delivered (?:is|are)):[ \t]*\n/i;
const EXIM_ADDRESS = /^ {1,3}<?([^\s<>@]+@[^\s<>@]+)>?:?[ \t]*$/;
const EXIM_GENERATED = /\(generated from <?([^\s()<>@]+@[^\s()<>@]+)>?\)/;

/**
 * Exim: below 'The following address(es) failed:' each address is indented two spaces and its
 * details four; the section ends at the first line that is not indented. '(generated from
 * <alias>)' names the address we sent to.
 */
function eximBlocks(text: string, action: RecipientAction): StatusEntry[] {
  const section = EXIM_SECTION.exec(text);
  if (!section) return [];
  const blocks: Block[] = [];
  for (const line of text.slice(section.index + section[0].length).split('\n')) {
    if (line.trim() === '') continue;
    if (!/^[ \t]/.test(line)) break;
    const address = EXIM_ADDRESS.exec(line)?.[1];
    if (address) blocks.push({ address, detail: [] });
    else blocks.at(-1)?.detail.push(line);
  }
  for (const block of blocks) block.address = EXIM_GENERATED.exec(block.detail.join(' '))?.[1] ?? block.address;
  return entriesOf(blocks, action);
}

const EXCHANGE_ADDRESS = /^\s*<?([^\s<>@]+@[^\s<>@]+)>?(?:<mailto:[^<>\s]+>)?\s*$/;
const EXCHANGE_REPLY = /Remote Server returned '(.*)'|^\s*#(\d{3}[ -][^#]*)##/;

/**
 * Exchange: under 'Diagnostic information for administrators' an address line is followed by
 * "Remote Server returned '550 5.1.10 ...'" (Office 365) or '#550 5.1.1 ... ##' (older
 * versions). Without those lines, the addresses the NDR lists, with no diagnostic.
 */
function exchangeBlocks(text: string, action: RecipientAction): StatusEntry[] {
  const blocks: Block[] = [];
  const listed = new Set<string>();
  let address: string | null = null;
  for (const line of text.split('\n')) {
    const reply = EXCHANGE_REPLY.exec(line);
    const found = EXCHANGE_ADDRESS.exec(line)?.[1];
    if (reply && address) blocks.push({ address, detail: [(reply[1] ?? reply[2]!).trim()] });
    if (found) listed.add(found);
    if (found || reply) address = found ?? null;
  }
  if (blocks.length > 0) return entriesOf(blocks, action);
  return entriesOf(
    [...listed].map((listedAddress) => ({ address: listedAddress, detail: [] })),
    action,
  );
}

const GMAIL_LIST = /Delivery to the following recipients? (?:failed permanently|has been delayed):/i;
const GMAIL_RECIPIENT =
  /(?:wasn't delivered to|temporary problem delivering your message to)[ \t]*([^\s<>@]+@[^\s<>@]+)/i;
const GMAIL_REPLY =
  /(?:The response from the remote server was|The error that the other server returned was|The response was):[ \t]*\n/i;

/**
 * Gmail: "Your message wasn't delivered to <address>" (older: an indented list under "Delivery
 * to the following recipient failed permanently:"), the reply below "The response from the
 * remote server was:" (older: "The error that the other server returned was:").
 */
function gmailBlocks(text: string, action: RecipientAction): StatusEntry[] {
  const reply = GMAIL_REPLY.exec(text);
  const detail = reply ? [paragraph(text.slice(reply.index + reply[0].length))] : [];
  const list = GMAIL_LIST.exec(text);
  const addresses = list
    ? paragraph(text.slice(list.index + list[0].length)).split('\n')
    : [GMAIL_RECIPIENT.exec(text)?.[1] ?? ''];
  return entriesOf(
    addresses.map((address) => ({ address: address.trim(), detail })),
    action,
  );
}

const READERS: Record<VendorFormat, (text: string, action: RecipientAction) => StatusEntry[]> = {
  postfix: angleBlocks,
  qmail: angleBlocks,
  yahoo: angleBlocks,
  exim: eximBlocks,
  exchange: exchangeBlocks,
  gmail: gmailBlocks,
};

/** The recipients a bounce's text names; for an unrecognised one, the first reader that finds any. */
export function textEntries(format: ReportFormat, text: string, action: RecipientAction): StatusEntry[] {
  if (format !== 'rfc3464' && format !== 'unknown') return READERS[format](text, action);
  for (const read of new Set(Object.values(READERS))) {
    const entries = read(text, action);
    if (entries.length > 0) return entries;
  }
  return [];
}
