import type { EgressAddress, EgressRegion } from '../../../lib/config/egress-pools.js';
import { parseReply } from '../bounces/reply-parser.js';
import type { DeliveryRepository } from './delivery.repository.js';
import type { Delivery } from './delivery.types.js';
import type { AttemptView, QueueInspection } from './queue-inspection.js';

/** Attempts shown per delivery (the most recent): see QueueInspection.attemptsOfDeliveries. */
export const ATTEMPTS_PER_DELIVERY = 10;

/** What a reply said, split as RFC 5321/3463 write it; `raw` is the reply as recorded. */
export type ReplyParts = { code: number | null; enhancedCode: string | null; text: string; raw: string };

/**
 * Whether the session was upgraded with STARTTLS, read from the transcript (nodemailer logs the
 * upgrade); null without a transcript (not asked for, or past mta.transcriptRetentionDays).
 * The protocol version and cipher are not recorded by the MTA yet.
 */
export type TlsUse = { used: boolean | null; version: null; cipher: null };

export type AttemptDetail = AttemptView & {
  egress: { ip: string | null; region: EgressRegion | null; helo: string | null };
  replyParts: ReplyParts | null;
  tls: TlsUse;
};

export type DeliveryDetail = { delivery: Delivery; attempts: AttemptDetail[] };

/** nodemailer's transaction log line for a successful STARTTLS upgrade. */
const STARTTLS_UPGRADED = /^\* Connection upgraded with STARTTLS/m;

export function replyParts(reply: string | null): ReplyParts | null {
  if (reply === null) return null;
  const parsed = parseReply(reply);
  // A connection failure (no SMTP reply) is recorded as its error text: no code to show.
  return { code: parsed.code || null, enhancedCode: parsed.enhanced, text: parsed.text, raw: reply };
}

/**
 * One email's outbound deliveries (one per recipient) with their recent attempts, for the team
 * that sent it (GET /emails/{id}/deliveries): the same rows `mailroom queue show --email` reads,
 * through the delivery repository and the queue inspection, with each attempt's egress address
 * placed in its region's pool (from the configuration in force now) and its reply split.
 */
export class EmailDeliveryLog {
  constructor(
    private readonly deps: {
      deliveries: DeliveryRepository;
      inspection: QueueInspection;
      pools: Record<EgressRegion, EgressAddress[]>;
      /** The sending domain's region (whose pool the MTA picks from); null once the domain is gone. */
      regionOf: (domainId: string) => Promise<EgressRegion | null>;
    },
  ) {}

  /** The caller has checked that the email is the team's (EmailService.find). */
  async ofEmail(email: { id: string; domainId: string }, options: { transcripts: boolean }): Promise<DeliveryDetail[]> {
    const deliveries = await this.deps.deliveries.ofEmail(email.id);
    const attempts = await this.deps.inspection.attemptsOfDeliveries(
      deliveries.map((d) => d.id),
      { transcripts: options.transcripts, perDelivery: ATTEMPTS_PER_DELIVERY },
    );
    const region = deliveries.length > 0 ? await this.deps.regionOf(email.domainId) : null;
    return deliveries.map((delivery) => ({
      delivery,
      attempts: (attempts.get(delivery.id) ?? []).map((attempt) => this.detail(attempt, region)),
    }));
  }

  /**
   * The pool an address left from: the domain's region when its pool holds the address (an
   * address may serve several regions), else the first region that holds it now; null when no
   * pool does any more (the configuration changed since).
   */
  private egressOf(ip: string | null, region: EgressRegion | null): AttemptDetail['egress'] {
    if (!ip) return { ip, region: null, helo: null };
    const regions = (region ? [region] : []).concat(Object.keys(this.deps.pools) as EgressRegion[]);
    for (const candidate of regions) {
      const egress = this.deps.pools[candidate]?.find((entry) => entry.address === ip);
      if (egress) return { ip, region: candidate, helo: egress.helo };
    }
    return { ip, region: null, helo: null };
  }

  private detail(attempt: AttemptView, region: EgressRegion | null): AttemptDetail {
    const transcript = attempt.transcript;
    return {
      ...attempt,
      egress: this.egressOf(attempt.egressIp, region),
      replyParts: replyParts(attempt.reply),
      tls: {
        used: transcript === undefined || transcript === null ? null : STARTTLS_UPGRADED.test(transcript),
        version: null,
        cipher: null,
      },
    };
  }
}
