import { BOUNCE_RULES } from './bounce-rules.js';
import type {
  BounceCategory,
  BounceRule,
  DelayType,
  DeliveryVerdict,
  ParsedReply,
  ReplyInput,
} from './bounce.types.js';
import { CONNECTION_RULES } from './connection-rules.js';
import { diagnosticCode, matchText, parseReply } from './reply-parser.js';

/**
 * Classifies what a remote server answered (or failed to answer) into the queue's decision
 * (bounce now or retry), the bounce fields of the email.bounced event, and two side effects
 * the caller applies: a strike against the egress IP (blocklisting) and suppression of the
 * recipient (hardBounce). Pure: no I/O, no clock, so every decision is a unit test.
 */

export type { DeliveryVerdict, ParsedReply, ReplyInput } from './bounce.types.js';

/** The sentence for the bounce `message`; the server's own words go in diagnosticCode. */
const MESSAGES: Record<BounceCategory, string> = {
  mailbox_unknown: "The recipient's mail server reports that the address does not exist or no longer accepts mail.",
  mailbox_full: "The recipient's mailbox is full.",
  message_too_large: "The message is larger than the recipient's mail server accepts.",
  policy: "The recipient's mail server refused the message under its policy.",
  spam_block: "The recipient's mail server refused mail from the sending IP address (blocklist or reputation).",
  rate_limited: "The recipient's mail server is limiting how fast it accepts mail from this sender.",
  greylisted: "The recipient's mail server asked for the message to be sent again later (greylisting).",
  domain_unknown: "The recipient's domain does not exist or does not receive mail.",
  relay_denied: "The recipient's mail server refused to accept mail for this domain (relay denied).",
  auth_failure:
    "The recipient's mail server refused the message because the sender's authentication (SPF, DKIM, DMARC or reverse DNS) failed.",
  content_rejected: "The recipient's mail server rejected the content of the message.",
  connection_failure: "The recipient's mail server could not be reached.",
  unknown_temporary: "The recipient's mail server reported a temporary failure.",
  unknown_permanent: "The recipient's mail server rejected the message.",
};

const ATTACHMENT_MESSAGE = "The recipient's mail server rejected an attachment of the message.";

/** SES delay types, reported by email.delivery_delayed while a deferred delivery is retried. */
const DELAY_TYPES: Record<BounceCategory, DelayType> = {
  mailbox_unknown: 'General',
  mailbox_full: 'MailboxFull',
  message_too_large: 'General',
  policy: 'General',
  spam_block: 'IPFailure',
  rate_limited: 'IPFailure',
  greylisted: 'General',
  domain_unknown: 'RecipientServerError',
  relay_denied: 'RecipientServerError',
  auth_failure: 'General',
  content_rejected: 'SpamDetected',
  connection_failure: 'TransientCommunicationFailure',
  unknown_temporary: 'RecipientServerError',
  unknown_permanent: 'General',
};

/** Categories whose permanent form means the address itself is bad: suppress it. */
const HARD_CATEGORIES: ReadonlySet<BounceCategory> = new Set(['mailbox_unknown', 'domain_unknown']);

function verdictOf(rule: BounceRule, reply: ParsedReply): DeliveryVerdict {
  const message = rule.subType === 'AttachmentRejected' ? ATTACHMENT_MESSAGE : MESSAGES[rule.category];
  return {
    rule: rule.id,
    category: rule.category,
    action: rule.action,
    bounce: { type: rule.bounceType, subType: rule.subType, message, diagnosticCode: [diagnosticCode(reply)] },
    delayType: DELAY_TYPES[rule.category],
    blocklisting: rule.blocklisting === true,
    hardBounce: rule.action === 'bounce' && rule.bounceType === 'Permanent' && HARD_CATEGORIES.has(rule.category),
  };
}

/** A reply without a 4xx/5xx code cannot be read as a failure: retry, type Undetermined. */
function undetermined(reply: ParsedReply): DeliveryVerdict {
  return {
    rule: 'unparseable',
    category: 'unknown_temporary',
    action: 'defer',
    bounce: {
      type: 'Undetermined',
      subType: 'Undetermined',
      message: "The recipient's mail server gave a reply that could not be understood.",
      diagnosticCode: reply.code === 0 && reply.text === '' ? [] : [diagnosticCode(reply)],
    },
    delayType: 'Undetermined',
    blocklisting: false,
    hardBounce: false,
  };
}

/** The first rule whose pattern matches the reply, or undefined (the fallbacks match any 4xx/5xx). */
export function findRule(reply: ParsedReply): BounceRule | undefined {
  const text = matchText(reply);
  return BOUNCE_RULES.find((rule) => rule.match.test(text));
}

export function classifyReply(input: ReplyInput): DeliveryVerdict {
  const reply = parseReply(input);
  if (reply.code < 400 || reply.code > 599) return undetermined(reply);
  const rule = findRule(reply);
  return rule ? verdictOf(rule, reply) : undetermined(reply);
}

export type ConnectionFailure = { code?: string; message?: string } | string;

/** 'ETIMEDOUT: Connection timeout' (the delivery session's form) or an error-like object. */
function failureParts(failure: ConnectionFailure): { code: string; message: string } {
  if (typeof failure !== 'string') return { code: failure.code ?? '', message: failure.message ?? '' };
  const split = /^([A-Z][A-Z0-9_]+):\s*(.*)$/s.exec(failure.trim());
  return split ? { code: split[1]!, message: split[2]! } : { code: '', message: failure.trim() };
}

/**
 * A connection that failed before any reply (refused, timed out, reset, DNS, TLS, STARTTLS
 * missing where TLS is enforced): always deferred, Transient, with a sentence saying what broke.
 */
export function classifyConnectionFailure(failure: ConnectionFailure): DeliveryVerdict {
  const { code, message } = failureParts(failure);
  const text = `${code} ${message}`.trim();
  const rule =
    CONNECTION_RULES.find((candidate) => candidate.match.test(text)) ?? CONNECTION_RULES[CONNECTION_RULES.length - 1]!;
  return {
    rule: rule.id,
    category: 'connection_failure',
    action: 'defer',
    bounce: {
      type: 'Transient',
      subType: 'General',
      message: text ? `${rule.message} (${text})` : rule.message,
      diagnosticCode: [],
    },
    delayType: 'TransientCommunicationFailure',
    blocklisting: false,
    hardBounce: false,
  };
}
