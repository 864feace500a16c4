import type { Knex } from 'knex';
import { retryConflicts } from '../../../db/retry.js';
import type { Clock } from '../../../lib/clock.js';
import type { SecretBox } from '../../../lib/crypto/secret-box.js';
import { newId } from '../../../lib/ids.js';
import type { EventLog } from '../log/event-log.js';
import type { LoggedEvent } from '../log/event.types.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookEndpointRepository } from './webhook-endpoint.repository.js';
import type { WebhookOutbox } from './webhook-outbox.js';
import { payloadBody } from './webhook-payload.js';
import { nextRetryAt } from './webhook-retry.js';
import { secretsInEffect } from './webhook-secrets.js';
import { postOnce, type PostResult } from './webhook-sender.js';
import { signatureHeader } from './webhook-signature.js';
import { resolveTarget, type TargetRules } from './webhook-target.js';
import type {
  DeliveryStatus,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookSettings,
} from './webhook.types.js';

export type DispatcherDeps = {
  knex: Knex;
  clock: Clock;
  events: EventLog;
  secrets: SecretBox;
  outbox: WebhookOutbox;
  rules: TargetRules;
  settings: WebhookSettings;
  random?: () => number;
};

export type DeliveryOutcome = DeliveryStatus | 'dropped';

/** Told when an endpoint is disabled for failing (the worker logs it). */
export type DisabledListener = (info: {
  endpointId: string;
  teamId: string;
  failingSince: Date;
  ended: number;
}) => void;

/** The user agent of every delivery (spec: Delivery and signature). */
export const USER_AGENT = 'Service-Webhooks/1.0';

/**
 * Delivers claimed outbox rows: one signed POST per attempt, to an address checked again right
 * before connecting (a name that rebinds to an internal address after creation is refused and
 * the attempt recorded as failed, nothing sent). Each attempt is recorded with the delivery's
 * new state and the endpoint's failure run in one transaction; an endpoint failing every
 * attempt for disableAfterSeconds is disabled.
 */
export class WebhookDispatcher {
  private readonly disabledListeners: DisabledListener[] = [];

  constructor(private readonly deps: DispatcherDeps) {}

  onEndpointDisabled(listener: DisabledListener): void {
    this.disabledListeners.push(listener);
  }

  /** Claims up to `limit` due deliveries under a lease that outlives one attempt. */
  async claim(limit: number, token: string): Promise<WebhookDelivery[]> {
    const now = this.deps.clock.now();
    const leaseMs = Math.max(this.deps.settings.leaseMs, this.deps.settings.timeoutMs + 30_000);
    return new WebhookDeliveryRepository(this.deps.knex).claim(limit, token, now, new Date(now.getTime() + leaseMs));
  }

  async deliver(delivery: WebhookDelivery): Promise<DeliveryOutcome> {
    const endpoint = await new WebhookEndpointRepository(this.deps.knex).find(delivery.endpointId);
    if (!endpoint) {
      // Deleted since the event: its log goes with it.
      await new WebhookDeliveryRepository(this.deps.knex).delete(delivery.id);
      return 'dropped';
    }
    const event = await this.deps.events.find(delivery.eventId);
    if (!event || endpoint.status !== 'enabled') {
      await new WebhookDeliveryRepository(this.deps.knex).settle(delivery, {
        status: 'failed',
        attempts: delivery.attempts,
        nextAttemptAt: null,
        now: this.deps.clock.now(),
      });
      return 'failed';
    }
    const result = await this.attempt(endpoint, event);
    return this.record(delivery, endpoint, result);
  }

  /** Claims and delivers until nothing is due (tests, `mailroom job run`). */
  async drain(token: string, batch = 50): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.claim(batch, `${token}:${total}`);
      if (claimed.length === 0) return total;
      await Promise.all(claimed.map((delivery) => this.deliver(delivery)));
      total += claimed.length;
    }
  }

  private async attempt(endpoint: WebhookEndpoint, event: LoggedEvent): Promise<PostResult> {
    const target = await resolveTarget(endpoint.url, this.deps.rules);
    if (!target.ok) return { statusCode: null, error: `not sent: ${target.reason}`, durationMs: 0 };
    const now = this.deps.clock.now();
    const body = payloadBody(event);
    const timestamp = Math.floor(now.getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(
        secretsInEffect(endpoint, this.deps.secrets, now),
        event.id,
        timestamp,
        body,
      ),
    };
    const { timeoutMs, maxResponseBytes, ca } = this.deps.settings;
    return postOnce({ url: target.url, address: target.address, headers, body, timeoutMs, maxResponseBytes, ca });
  }

  private async record(
    delivery: WebhookDelivery,
    endpoint: WebhookEndpoint,
    result: PostResult,
  ): Promise<DeliveryOutcome> {
    const now = this.deps.clock.now();
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const attempts = delivery.attempts + 1;
    let next = ok ? null : nextRetryAt(this.deps.settings.retrySchedule, attempts, now, this.deps.random);
    let status: DeliveryStatus = ok ? 'success' : next ? 'attempting' : 'failed';
    const attempt: WebhookAttempt = {
      id: newId(),
      deliveryId: delivery.id,
      teamId: delivery.teamId,
      statusCode: result.statusCode,
      response: 'response' in result ? result.response : null,
      error: 'error' in result ? result.error : null,
      durationMs: result.durationMs,
      createdAt: now,
    };
    // The attempt already happened: a deadlock victim is recorded again rather than left for the
    // lease to run out (which would send it a second time).
    await retryConflicts(() =>
      this.deps.knex.transaction(async (trx) => {
        const deliveries = new WebhookDeliveryRepository(trx);
        await deliveries.insertAttempt(attempt);
        if (ok) await new WebhookEndpointRepository(trx).clearFailing(endpoint.id);
        // Disabled meanwhile (by this failure, or while the attempt was in flight): no retry.
        else if (!(await this.noteFailure(trx, endpoint, now))) [status, next] = ['failed', null];
        await deliveries.settle(delivery, { status, attempts, nextAttemptAt: next, now });
      }),
    );
    return status;
  }

  /**
   * Extends the endpoint's run of failures; past disableAfterSeconds the endpoint is disabled and
   * its waiting deliveries end. Returns whether the endpoint is still enabled.
   */
  private async noteFailure(trx: Knex, endpoint: WebhookEndpoint, now: Date): Promise<boolean> {
    const endpoints = new WebhookEndpointRepository(trx);
    const { since, enabled } = await endpoints.markFailing(endpoint.id, now);
    if (!enabled) return false;
    if (!since || now.getTime() - since.getTime() < this.deps.settings.disableAfterSeconds * 1000) return true;
    if (!(await endpoints.disable(endpoint.id, 'failing', now))) return false;
    const ended = await new WebhookDeliveryRepository(trx).failOpen(endpoint.id, now);
    this.deps.outbox.invalidate();
    for (const listener of this.disabledListeners)
      listener({ endpointId: endpoint.id, teamId: endpoint.teamId, failingSince: since, ended });
    return false;
  }
}
