import { createHash } from 'node:crypto';
import type { LoggedEvent } from '../events/log/event.types.js';
import type { DomainHealth } from '../platform/doctor/domain-health.js';
import type { AttemptDetail, DeliveryDetail } from '../sending/deliveries/email-delivery-log.js';
import type { EgressBlockView } from '../sending/deliveries/queue-inspection.js';
import type { Email } from '../sending/emails/email.types.js';
import { AddressRedactor } from './address-redactor.js';

/**
 * What the appliance knows about one email, gathered for a diagnosis, and the one place it is
 * turned into what the model may see. Only named fields are copied (never a body, a subject,
 * headers, tags or links), and every text that came from outside (server replies, transcripts,
 * bounce and failure messages, DNS details, block reasons) goes through the AddressRedactor.
 */
export type DiagnosisSources = {
  /** The email's events, oldest first (the first 100: what matters for delivery comes first). */
  events: (teamId: string, emailId: string) => Promise<LoggedEvent[]>;
  /** Its deliveries with their recent attempts, transcripts included (GET /emails/{id}/deliveries). */
  deliveries: (email: Email) => Promise<DeliveryDetail[]>;
  /** Which of these addresses the team's suppression list holds. */
  suppressed: (teamId: string, addresses: string[]) => Promise<Set<string>>;
  /** The sending domain's DNS checks now (GET /domains/{id}/health); throws when the domain is gone. */
  domainHealth: (teamId: string, domainId: string) => Promise<DomainHealth>;
  /** Egress addresses resting from a destination, or disabled, now. */
  activeBlocks: (now: Date) => Promise<EgressBlockView[]>;
  /** The bounce classifier's reading of an SMTP reply. */
  classify: (reply: string) => { category: string; rule: string; action: string; blocklisting: boolean };
};

/** The email's own state: what a stored diagnosis is keyed by (its hash), read without DNS. */
export type EmailState = {
  email: Email;
  events: LoggedEvent[];
  deliveries: DeliveryDetail[];
  suppressed: Set<string>;
  hash: string;
};

const TRANSCRIPT_CHARS = 2_000;
const LINE_CHARS = 300;
const ATTEMPTS_SHOWN = 3;

export async function readEmailState(sources: DiagnosisSources, email: Email): Promise<EmailState> {
  const [events, deliveries] = await Promise.all([sources.events(email.teamId, email.id), sources.deliveries(email)]);
  const recipients = recipientsOf(email, deliveries);
  const suppressed = await sources.suppressed(email.teamId, recipients);
  // A new event, attempt or suppression is a new state; DNS and block-list state are the context
  // the diagnosis was made in, not the email's state (a stored answer stays about this history).
  const state = {
    last: email.lastEvent,
    events: events.map((event) => event.id),
    deliveries: deliveries.map(({ delivery }) => [delivery.id, delivery.state, delivery.attempts]),
    suppressed: [...suppressed].map((address) => address.toLowerCase()).sort(),
  };
  const hash = createHash('sha256').update(JSON.stringify(state)).digest('hex');
  return { email, events, deliveries, suppressed, hash };
}

function recipientsOf(email: Email, deliveries: DeliveryDetail[]): string[] {
  const all = [...email.to, ...(email.cc ?? []), ...(email.bcc ?? []), ...deliveries.map((d) => d.delivery.recipient)];
  return [...new Set(all.map((address) => address.toLowerCase()))];
}

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/** The email's redactor: the same placeholders for the facts and, restored, for the answer. */
export function redactorOf(state: EmailState): AddressRedactor {
  const { email } = state;
  return new AddressRedactor({
    sender: email.fromAddress,
    recipients: recipientsOf(email, state.deliveries),
    subject: email.subject,
  });
}

/** The facts the model is given, every address a placeholder. */
export async function diagnosisFacts(
  sources: DiagnosisSources,
  state: EmailState,
  now: Date,
  redactor = redactorOf(state),
): Promise<Record<string, unknown>> {
  const { email } = state;
  const attempts = state.deliveries.flatMap(({ attempts }) => attempts);
  const [dns, blocks] = await Promise.all([
    domainState(sources, email, redactor),
    sources.activeBlocks(now).catch(() => null),
  ]);
  const usedIps = new Set(attempts.map((attempt) => attempt.egressIp).filter(Boolean));
  const destinations = new Set(state.deliveries.map(({ delivery }) => delivery.recipientDomain));
  return {
    email: {
      status: email.lastEvent,
      kind: email.broadcastId ? 'broadcast' : 'transactional',
      created_at: email.createdAt.toISOString(),
      scheduled_at: email.scheduledAt?.toISOString() ?? null,
      sender: '<sender>',
      sender_domain: domainOf(email.fromAddress),
      recipients: recipientsOf(email, state.deliveries).map((address) => redactor.recipient(address)),
      suppressed_when_sent: email.suppressedRecipients.map((address) => redactor.recipient(address)),
      size_bytes: email.sizeBytes,
    },
    events: state.events.map((event) => eventFacts(event, redactor)),
    deliveries: state.deliveries.map(({ delivery, attempts: log }) => ({
      recipient: redactor.recipient(delivery.recipient),
      recipient_domain: delivery.recipientDomain,
      state: delivery.state,
      attempts: delivery.attempts,
      on_suppression_list: state.suppressed.has(delivery.recipient.toLowerCase()),
      next_attempt_at: ['queued', 'deferred'].includes(delivery.state) ? delivery.nextAttemptAt.toISOString() : null,
      recent_attempts: log
        .slice(-ATTEMPTS_SHOWN)
        .map((attempt, i, shown) => attemptFacts(sources, attempt, redactor, i === shown.length - 1)),
    })),
    sender_domain_dns: dns,
    egress_blocks:
      blocks === null
        ? 'unknown (could not be read)'
        : blocks
            .filter(
              (block) =>
                usedIps.has(block.egressIp) || block.destination === '*' || destinations.has(block.destination),
            )
            .map((block) => ({
              egress_ip: block.egressIp,
              destination:
                block.destination === '*' ? 'every destination (disabled by the operator)' : block.destination,
              strikes: block.strikes,
              blocked_until: block.blockedUntil.toISOString(),
              reason: redactor.redact(block.reason),
            })),
  };
}

function eventFacts(event: LoggedEvent, redactor: AddressRedactor): Record<string, unknown> {
  const data = event.data;
  const to = Array.isArray(data.to) ? (data.to as string[]).map((address) => redactor.recipient(address)) : [];
  const facts: Record<string, unknown> = { type: event.type, at: event.createdAt.toISOString(), recipients: to };
  const bounce = data.bounce as { type?: string; subType?: string; message?: string; diagnosticCode?: string[] };
  if (bounce)
    facts.bounce = {
      type: bounce.type,
      sub_type: bounce.subType,
      message: redactor.redact(String(bounce.message ?? '')),
      diagnostic_codes: (bounce.diagnosticCode ?? []).map((code) => redactor.redact(String(code))),
    };
  const delay = data.delay as { type?: string; expirationTime?: string } | undefined;
  if (delay) facts.delay = { type: delay.type, expires_at: delay.expirationTime };
  const failed = data.failed as { reason?: string } | undefined;
  if (failed) facts.failed = { reason: redactor.redact(String(failed.reason ?? '')) };
  const suppressed = data.suppressed as { type?: string; message?: string } | undefined;
  if (suppressed)
    facts.suppressed = { type: suppressed.type, message: redactor.redact(String(suppressed.message ?? '')) };
  return facts;
}

function attemptFacts(
  sources: DiagnosisSources,
  attempt: AttemptDetail,
  redactor: AddressRedactor,
  withTranscript: boolean,
): Record<string, unknown> {
  const reply = attempt.replyParts;
  const classified = reply?.code && reply.code >= 400 ? sources.classify(reply.raw) : null;
  return {
    at: attempt.at.toISOString(),
    outcome: attempt.outcome,
    egress_ip: attempt.egressIp || null,
    mx_host: attempt.mxHost,
    tls: attempt.tls.used,
    reply: reply
      ? { code: reply.code, enhanced_code: reply.enhancedCode, text: redactor.redact(reply.text).slice(0, 1_000) }
      : null,
    classification: classified
      ? {
          category: classified.category,
          rule: classified.rule,
          action: classified.action,
          blocklisting: classified.blocklisting,
        }
      : null,
    duration_ms: attempt.durationMs,
    ...(withTranscript && attempt.transcript ? { transcript: transcriptFacts(attempt.transcript, redactor) } : {}),
  };
}

/** The SMTP dialogue, addresses replaced, long lines and long dialogues cut (the start and the end kept). */
function transcriptFacts(transcript: string, redactor: AddressRedactor): string {
  // Redacted before anything is cut, so no cut can leave half an address that no longer matches.
  const text = redactor
    .redact(transcript)
    .split(/\r?\n/)
    .map((line) => (line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}...` : line))
    .join('\n');
  if (text.length <= TRANSCRIPT_CHARS) return text;
  const head = TRANSCRIPT_CHARS / 4;
  return `${text.slice(0, head)}\n[... cut ...]\n${text.slice(text.length - (TRANSCRIPT_CHARS - head))}`;
}

async function domainState(
  sources: DiagnosisSources,
  email: Email,
  redactor: AddressRedactor,
): Promise<Record<string, unknown> | string> {
  try {
    const health = await sources.domainHealth(email.teamId, email.domainId);
    return {
      checked_at: health.checkedAt.toISOString(),
      status: health.status,
      checks: health.checks.map((check) => ({
        id: check.id,
        status: check.status,
        detail: redactor.redact(check.detail),
      })),
    };
  } catch {
    return 'unknown: the sending domain no longer exists or its DNS could not be checked';
  }
}
