import type { AttemptRecord, Delivery } from '../../core/sending/deliveries/delivery.types.js';
import type { Services } from '../../app/services.js';
import type { Config } from '../../lib/config/config.schema.js';
import type { Logger } from '../../lib/logger.js';
import { replyClass } from '../../lib/metrics/bounded-labels.js';
import type { ProcessMetrics } from '../../lib/metrics/process-metrics.js';
import { classifyConnectionFailure, classifyReply } from '../../core/sending/bounces/bounce-classifier.js';
import { nextAttemptAt } from '../queue/retry-schedule.js';
import type { AttemptContext, DeliveryBatch } from './delivery-batch.js';

/**
 * Turns what a remote server said into the queue's state changes: acceptance -> delivered;
 * a reply classified as permanent -> bounced (hard bounces suppress the recipient); anything
 * temporary, and broken connections, -> deferred on the retry schedule, or bounced once the
 * delivery would outlive the maximum queue time. Blocklisting replies count a strike against
 * the egress address for that destination.
 */
/** Characters of a server reply (or connection error) kept with an outcome. */
export const MAX_REPLY_CHARS = 4000;

/**
 * A reply as recorded: a server may answer with any amount of text (RFC 5321 bounds a reply
 * line at 512 octets, not the number of lines), and the rows and events that keep it have
 * their limits; the start of a reply is what says what happened.
 */
export function boundedReply(text: string): string {
  return text.length <= MAX_REPLY_CHARS ? text : `${text.slice(0, MAX_REPLY_CHARS)}... (reply truncated)`;
}

export class OutcomeRecorder {
  constructor(
    private readonly services: Services,
    private readonly config: Config,
    private readonly logger: Logger,
    private readonly metrics?: ProcessMetrics,
  ) {}

  /** One reply (or none: `connection`) of a remote server, by class and destination. */
  private countReply(deliveries: Delivery[], replyOrConnection: string): void {
    if (!this.metrics) return;
    const domain = this.metrics.destinationLabels.of(deliveries[0]!.recipientDomain);
    const kind = replyOrConnection === 'connection' ? 'connection' : replyClass(replyOrConnection);
    this.metrics.smtpReplies.inc({ class: kind, domain });
  }

  /** What became of each recipient's delivery this attempt. */
  private countOutcome(deliveries: Delivery[], outcome: 'delivered' | 'bounced' | 'deferred' | 'expired'): void {
    this.metrics?.deliveryOutcomes.inc({ outcome }, deliveries.length);
  }

  /**
   * Traffic shaping's reaction to a reply (see DeliverabilityActions): true when a reaction rule
   * matched and the message is to be retried rather than classified. A failure to record the
   * reaction is logged; the outcome is still recorded.
   */
  private async reacted(batch: DeliveryBatch, context: AttemptContext, reply: string): Promise<boolean> {
    const { shaping } = this.services;
    if (!shaping.enabled || !batch.provider || !context.egressIp) return false;
    const rule = shaping.actions.ruleFor(batch.provider.name, reply);
    if (!rule) return false;
    try {
      const action = await shaping.actions.react(batch.provider, context.egressIp, reply);
      if (action) this.metrics?.shapingActions.inc({ action: action.kind, provider: batch.provider.name ?? 'other' });
    } catch (err) {
      this.logger.error({ err, provider: batch.provider.key }, 'could not record a deliverability action');
    }
    return rule.message !== 'classify';
  }

  /** A warming address's answers by class, for its warm-up progress. */
  private countWarmupAnswer(batch: DeliveryBatch, replyOrConnection: string): void {
    if (!batch.warming || !batch.provider) return;
    const kind = replyOrConnection === 'connection' ? 'connection' : replyClass(replyOrConnection);
    if (kind !== 'connection' && kind !== '2xx' && kind !== '4xx' && kind !== '5xx') return;
    void this.services.shaping.warmup
      .countAnswer(batch.egress.address, batch.provider.key, kind)
      .catch((err: unknown) => this.logger.warn({ err }, 'could not count a warm-up answer'));
  }

  private attempt(context: AttemptContext, reply: string | null): AttemptRecord {
    return {
      egressIp: context.egressIp,
      mxHost: context.mxHost,
      reply,
      transcript: context.transcript,
      durationMs: Date.now() - context.startedAt,
    };
  }

  async delivered(
    batch: DeliveryBatch,
    deliveries: Delivery[],
    context: AttemptContext,
    fullReply: string,
  ): Promise<void> {
    if (deliveries.length === 0) return;
    const reply = boundedReply(fullReply);
    this.countReply(deliveries, reply);
    this.countWarmupAnswer(batch, reply);
    this.countOutcome(deliveries, 'delivered');
    // Marketing mail delivered to a provider: the base of the team's complaint rate there.
    if (batch.email.broadcastId && batch.provider && this.services.shaping.enabled)
      void this.services.shaping.complaints
        .delivered(batch.email.teamId, batch.provider.key, deliveries.length)
        .catch((err: unknown) => this.logger.warn({ err }, 'could not count a marketing delivery'));
    await this.services.deliveries.delivered(batch.email, deliveries, this.attempt(context, reply));
  }

  /** A reply from the server (per recipient, or for the whole message). */
  async replied(
    batch: DeliveryBatch,
    deliveries: Delivery[],
    context: AttemptContext,
    fullReply: string,
  ): Promise<void> {
    if (deliveries.length === 0) return;
    const reply = boundedReply(fullReply);
    const verdict = classifyReply(reply);
    this.countReply(deliveries, reply);
    this.countWarmupAnswer(batch, reply);
    // A reply that says "slow down" (or "stop for now") to this address: react, and retry the message later.
    if (await this.reacted(batch, context, reply)) {
      await this.deferOrExpire(batch, deliveries, context, reply, verdict.delayType);
      return;
    }
    if (verdict.blocklisting && context.egressIp) {
      await this.services.deliveries.strikeEgress(
        context.egressIp,
        deliveries[0]!.recipientDomain,
        reply,
        this.config.mta.blockThreshold,
        this.config.mta.blockRestSeconds,
      );
    }
    if (verdict.action === 'bounce') {
      this.countOutcome(deliveries, 'bounced');
      await this.services.deliveries.bounced(
        batch.email,
        deliveries,
        this.attempt(context, reply),
        verdict.bounce,
        verdict.hardBounce,
      );
      return;
    }
    await this.deferOrExpire(batch, deliveries, context, reply, verdict.delayType);
  }

  /** No reply to classify: connection refused, time-out, reset, TLS required but missing. */
  async broken(
    batch: DeliveryBatch,
    deliveries: Delivery[],
    context: AttemptContext,
    fullError: string,
  ): Promise<void> {
    if (deliveries.length === 0) return;
    const verdict = classifyConnectionFailure(boundedReply(fullError));
    this.countReply(deliveries, 'connection');
    this.countWarmupAnswer(batch, 'connection');
    // A refusal at the greeting (421 "too many connections") comes here, as the connection's failure.
    await this.reacted(batch, context, boundedReply(fullError));
    await this.deferOrExpire(batch, deliveries, context, verdict.bounce.message, verdict.delayType);
  }

  /** A permanent failure that is not a server reply (null MX, no such domain). */
  async undeliverable(
    batch: DeliveryBatch,
    deliveries: Delivery[],
    context: AttemptContext,
    fullMessage: string,
    hard: boolean,
  ): Promise<void> {
    const message = boundedReply(fullMessage);
    const bounce = { type: 'Permanent', subType: 'General', message, diagnosticCode: [] };
    this.countOutcome(deliveries, 'bounced');
    await this.services.deliveries.bounced(batch.email, deliveries, this.attempt(context, message), bounce, hard);
  }

  private async deferOrExpire(
    batch: DeliveryBatch,
    deliveries: Delivery[],
    context: AttemptContext,
    reply: string,
    delayType: string,
  ): Promise<void> {
    const now = new Date();
    const attempts = Math.max(...deliveries.map((d) => d.attempts)) + 1;
    const expiresAt = new Date(Math.min(...deliveries.map((d) => d.expiresAt.getTime())));
    const at = nextAttemptAt(this.config.mta.retrySchedule, attempts, now, expiresAt);
    if (at) {
      this.countOutcome(deliveries, 'deferred');
      await this.services.deliveries.deferred(batch.email, deliveries, this.attempt(context, reply), at, delayType);
      return;
    }
    this.logger.info({ emailId: batch.email.id, attempts }, 'delivery expired in the queue');
    this.countOutcome(deliveries, 'expired');
    const bounce = {
      type: 'Transient',
      subType: 'General',
      message: `Gave up after ${attempts} attempts: the message could not be delivered before it expired. Last error: ${reply}`,
      diagnosticCode: [`smtp; ${reply}`],
    };
    await this.services.deliveries.bounced(batch.email, deliveries, this.attempt(context, reply), bounce, false);
  }
}
