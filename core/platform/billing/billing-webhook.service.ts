import type { Knex } from 'knex';
import { isUniqueViolation } from '../../../db/errors.js';
import type { Clock } from '../../../lib/clock.js';
import { AppError, NotFoundError, ValidationError } from '../../../lib/errors.js';
import type { Logger } from '../../../lib/logger.js';
import type { BillingAccounts, Transact } from './billing-accounts.service.js';
import {
  WebhookSignatureError,
  type BillingProvider,
  type ProviderEvent,
  type SubscriptionSnapshot,
} from './billing-provider.js';
import type { AuditRecorder } from '../audit/audit-log.service.js';
import { APPLIANCE_ACTOR } from '../audit/audit.types.js';
import { BillingWebhookEventRepository } from './billing-webhook-event.repository.js';
import type { InvoiceCache } from './invoice-cache.js';

export type WebhookAnswer = { status: number; body: unknown };

export type BillingWebhookDeps = {
  clock: Clock;
  logger: Logger;
  provider: BillingProvider;
  accounts: BillingAccounts;
  events: BillingWebhookEventRepository;
  invoices: InvoiceCache;
  transact: Transact;
  /**
   * Whether a team exists, read in the given transaction (a subscription's metadata names a team
   * the appliance has no customer row for yet).
   */
  teamExists: (db: Knex, teamId: string) => Promise<boolean>;
  /** The team's audit log records what the provider changed (actor: the appliance). */
  audit: AuditRecorder;
};

/** How long applied event ids are kept (Stripe retries a delivery for up to three days). */
export const WEBHOOK_EVENT_RETENTION_DAYS = 30;

/**
 * Deliveries to /billing-webhooks/<provider>. Each verified event is applied once: its id is
 * stored in the transaction that applies it, so a redelivery changes nothing. What an event
 * says is not trusted as the current state (events arrive out of order): the subscription it
 * concerns is read again from the provider, and that state is applied. When the provider cannot
 * be read, the answer is 503 and nothing is stored, so the provider delivers again later.
 */
export class BillingWebhookService {
  constructor(private readonly deps: BillingWebhookDeps) {}

  async handle(
    providerName: string,
    raw: Buffer,
    headers: Record<string, string | string[] | undefined>,
  ): Promise<WebhookAnswer> {
    const { provider } = this.deps;
    try {
      if (!provider.configured || providerName !== provider.name)
        throw new NotFoundError(
          `No ${providerName} billing webhooks on this appliance (billing.provider is ${provider.name})`,
        );
      let event: ProviderEvent | null;
      try {
        event = provider.parseWebhook(raw, headers);
      } catch (err) {
        if (err instanceof WebhookSignatureError) throw new ValidationError(err.message);
        throw err;
      }
      if (!event) return { status: 200, body: { received: true, applied: false } };
      return { status: 200, body: { received: true, applied: await this.apply(event) } };
    } catch (err) {
      if (err instanceof AppError) return { status: err.statusCode, body: err.toBody() };
      throw err;
    }
  }

  /** False when the event was applied before (a redelivery) or concerns no team of this appliance. */
  private async apply(event: ProviderEvent): Promise<boolean> {
    const { events, provider, accounts } = this.deps;
    if (await events.isProcessed(event.id)) return false;
    const snapshot = event.subscriptionId ? await provider.readSubscription(event.subscriptionId) : null;
    const now = this.deps.clock.now();
    let teamId: string | null = null;
    try {
      teamId = await this.deps.transact(async (trx) => {
        await events.record(trx, { id: event.id, provider: provider.name, type: event.type }, now);
        if (!snapshot) return null;
        const repository = accounts.repository;
        const account =
          (await repository.findByCustomer(provider.name, snapshot.customerId, trx)) ??
          (snapshot.teamId ? await repository.find(snapshot.teamId, trx) : undefined);
        const owner =
          account?.teamId ??
          (snapshot.teamId && (await this.deps.teamExists(trx, snapshot.teamId)) ? snapshot.teamId : null);
        if (!owner) {
          this.deps.logger.warn(
            { event: event.id, customer: snapshot.customerId },
            'billing webhook for a customer of no team here',
          );
          return null;
        }
        await accounts.applyWithin(trx, owner, account, snapshot);
        await this.auditSync(trx, owner, event, snapshot);
        return owner;
      });
    } catch (err) {
      // The same event delivered twice at once: the other delivery applied it.
      if (isUniqueViolation(err) && (await events.isProcessed(event.id))) return false;
      throw err;
    }
    if (teamId) await this.deps.invoices.forget(teamId);
    return teamId !== null;
  }

  /** One entry per applied event: the provider's state as the appliance now holds it (no card data). */
  private async auditSync(
    trx: Knex,
    teamId: string,
    event: ProviderEvent,
    snapshot: SubscriptionSnapshot,
  ): Promise<void> {
    const { state } = snapshot;
    await this.deps.audit.record(
      {
        teamId,
        actor: APPLIANCE_ACTOR,
        action: 'billing.subscription_synced',
        resource: { type: 'subscription', id: state.subscriptionId },
        metadata: {
          provider: this.deps.provider.name,
          event_type: event.type,
          status: state.status,
          plan_code: state.planCode,
          items: state.items.map((item) => `${item.code ?? item.price} x${item.quantity}`),
        },
      },
      undefined,
      trx,
    );
  }

  async purgeOld(): Promise<number> {
    const cutoff = new Date(this.deps.clock.now().getTime() - WEBHOOK_EVENT_RETENTION_DAYS * 86_400_000);
    return this.deps.events.purgeBefore(cutoff);
  }
}
