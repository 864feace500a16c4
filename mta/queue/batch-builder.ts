import type { Delivery } from '../../core/sending/deliveries/delivery.types.js';
import type { Email } from '../../core/sending/emails/email.types.js';
import type { Services } from '../../app/services.js';
import type { EgressRegion } from '../../lib/config/egress-pools.js';
import type { AttemptContext, DeliveryBatch } from '../delivery/delivery-batch.js';
import type { MessagePreparer } from '../delivery/message-preparer.js';
import type { OutcomeRecorder } from '../delivery/outcome-recorder.js';
import type { EgressPicker } from '../pools/egress-picker.js';
import type { WarmupGate } from '../shaping/warmup-gate.js';
import { simulate } from '../simulator/mailbox-simulator.js';

const localContext = (note: string): AttemptContext => ({
  egressIp: null,
  mxHost: null,
  transcript: note,
  startedAt: Date.now(),
});

/**
 * Claimed deliveries -> batches keyed `destination|egress address`: one batch per email and
 * destination domain (one SMTP transaction with several RCPTs), each message prepared (signed)
 * once. Deliveries that need no connection are settled here: the mailbox simulator's, those
 * whose email or domain is gone (email.failed), and those with no egress address available
 * (deferred).
 */
export class BatchBuilder {
  constructor(
    private readonly services: Services,
    private readonly preparer: MessagePreparer,
    private readonly picker: EgressPicker,
    private readonly simulatorDomain: string,
    private readonly outcomes: OutcomeRecorder,
    private readonly warmup: WarmupGate,
    private readonly waitForWarmup: (batch: DeliveryBatch, until: Date) => Promise<unknown>,
  ) {}

  /** `known`: emails the caller already holds (a hand-over's), not read again. */
  async build(claimed: Delivery[], known: Email[] = []): Promise<Map<string, DeliveryBatch[]>> {
    const groups = new Map<string, DeliveryBatch[]>();
    const resting = new Map<string, ReadonlySet<string>>();
    for (const { email, deliveries, domain, message } of await this.prepareAll(claimed, known)) {
      if (!domain || !message) {
        await this.services.deliveries.failed(
          email,
          deliveries,
          toAttempt(localContext('')),
          domain ? 'The stored message could not be read' : 'The sending domain was deleted',
        );
        continue;
      }
      for (const [recipientDomain, group] of groupBy(deliveries, (d) => d.recipientDomain)) {
        if (recipientDomain === this.simulatorDomain) {
          await this.simulate(email, group);
          continue;
        }
        if (!resting.has(recipientDomain))
          resting.set(recipientDomain, await this.services.deliveries.restingEgress(recipientDomain));
        const region = domain.region as EgressRegion;
        const choice = await this.warmup.choose(
          (excluded) => this.picker.pick(region, email.id, excluded),
          recipientDomain,
          group,
          resting.get(recipientDomain)!,
        );
        const egress = choice.kind === 'egress' ? choice.egress : null;
        const batch: DeliveryBatch = {
          email,
          domain,
          deliveries: group,
          message,
          egress: egress ?? { address: '', helo: '', weight: 0 },
          ...(choice.kind === 'egress' ? { warming: choice.warming, provider: choice.provider } : {}),
        };
        if (choice.kind === 'wait') {
          await this.waitForWarmup(batch, choice.until);
          continue;
        }
        if (!egress) {
          await this.outcomes.broken(
            batch,
            group,
            localContext(''),
            `no egress address of ${domain.region} is available for ${recipientDomain}`,
          );
          continue;
        }
        const key = `${recipientDomain}|${egress.address}`;
        groups.set(key, [...(groups.get(key) ?? []), batch]);
      }
    }
    return groups;
  }

  /**
   * The claim's emails in one query, and each message prepared once: the stored MIME of every
   * email is read at once (the reads overlap instead of queueing one after another), then
   * signed. Emails purged by retention while queued are left out: nothing to send or announce.
   */
  private async prepareAll(claimed: Delivery[], known: Email[]) {
    const byEmail = groupBy(claimed, (d) => d.emailId);
    const emails = new Map(known.map((email) => [email.id, email]));
    const missing = [...byEmail.keys()].filter((id) => !emails.has(id));
    for (const email of await this.services.deliveries.emailsByIds(missing)) emails.set(email.id, email);
    const domains = new Map<string, ReturnType<MessagePreparer['domain']>>();
    const prepared = await Promise.all(
      [...byEmail.values()].map(async (deliveries) => {
        const email = emails.get(deliveries[0]!.emailId);
        if (!email) return null;
        if (!domains.has(email.domainId)) domains.set(email.domainId, this.preparer.domain(email.domainId));
        const { domain, keys } = await domains.get(email.domainId)!;
        return { email, deliveries, domain, message: domain ? await this.preparer.prepare(email, domain, keys) : null };
      }),
    );
    return prepared.filter((entry) => entry !== null);
  }

  /** The simulator's outcomes, recorded as a real delivery's would be. */
  private async simulate(email: Email, deliveries: Delivery[]): Promise<void> {
    for (const delivery of deliveries) {
      const outcome = simulate(delivery.recipient);
      const attempt = toAttempt(localContext(`* mailbox simulator: ${outcome.kind}`));
      if (outcome.kind === 'delivered')
        await this.services.deliveries.delivered(email, [delivery], { ...attempt, reply: '250 2.0.0 OK (simulated)' });
      if (outcome.kind === 'complained')
        await this.services.deliveries.complained(email, [delivery], { ...attempt, reply: '250 2.0.0 OK (simulated)' });
      if (outcome.kind === 'suppressed')
        await this.services.deliveries.suppressed(
          email,
          [delivery],
          attempt,
          `${delivery.recipient} is suppressed (simulated)`,
        );
      if (outcome.kind === 'bounced') {
        const bounce = {
          type: 'Permanent',
          subType: 'General',
          message: outcome.reply,
          diagnosticCode: [outcome.reply],
        };
        await this.services.deliveries.bounced(email, [delivery], { ...attempt, reply: outcome.reply }, bounce, false);
      }
    }
  }
}

function toAttempt(context: AttemptContext) {
  return {
    egressIp: context.egressIp,
    mxHost: context.mxHost,
    reply: null,
    transcript: context.transcript,
    durationMs: Date.now() - context.startedAt,
  };
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}
