import Stripe from 'stripe';
import type { Clock } from '../../../../lib/clock.js';
import type { Config } from '../../../../lib/config/config.schema.js';
import type { Logger } from '../../../../lib/logger.js';
import { ServiceUnavailableError } from '../../../../lib/errors.js';
import type { BillingAccount } from '../billing-account.types.js';
import {
  WebhookSignatureError,
  type BillingProvider,
  type CheckoutOrder,
  type CheckoutSession,
  type InvoiceList,
  type OverageReport,
  type PlanPrices,
  type PortalSession,
  type ProviderEvent,
  type SubscriptionSnapshot,
} from '../billing-provider.js';
import { callStripe, isDuplicateMeterEvent, stripeRefusal } from './stripe-errors.js';
import { StripePriceCatalog } from './stripe-prices.js';
import { subscriptionSnapshot, TEAM_METADATA_KEY } from './stripe-subscription-state.js';
import { providerEvent } from './stripe-webhook-events.js';

type StripeSettings = Config['billing']['stripe'];

/** Prices change rarely (a new price gets a new id): amounts are kept this long, and used stale while Stripe is down. */
const PRICE_TTL_MS = 10 * 60_000;
/** A subscription is read back with what GET /billing reports of it. */
const SUBSCRIPTION_EXPAND = ['latest_invoice', 'default_payment_method'];
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/**
 * Stripe through its official SDK: customers, Checkout Sessions (subscription mode), the
 * Billing Portal, invoices, subscription changes, webhooks (signature checked with
 * `webhooks.constructEvent` on the raw body) and billing meter events. The SDK retries failed
 * calls (maxNetworkRetries) with an idempotency key of its own; creating a customer carries one
 * per team, so two first uses at once cannot create two.
 */
export class StripeBillingProvider implements BillingProvider {
  readonly name = 'stripe';
  readonly configured = true;
  readonly meters: boolean;
  private readonly stripe: Stripe;
  private readonly prices: StripePriceCatalog;
  private readonly amounts = new Map<string, { decimal: number; currency: string; at: number }>();

  constructor(
    private readonly settings: StripeSettings,
    private readonly deps: { clock: Clock; logger: Logger },
  ) {
    this.prices = new StripePriceCatalog(settings);
    this.meters = Boolean(settings.meterEventName);
    this.stripe = new Stripe(settings.secretKey!, {
      maxNetworkRetries: settings.maxNetworkRetries,
      timeout: settings.timeoutMs,
      telemetry: false,
      appInfo: { name: 'Mailroom' },
      ...(settings.host ? { host: settings.host } : {}),
      ...(settings.port ? { port: settings.port } : {}),
      ...(settings.protocol ? { protocol: settings.protocol } : {}),
    });
  }

  sells(code: string): boolean {
    return this.prices.priceOf(code) !== undefined;
  }

  async planPrices(planCode: string): Promise<PlanPrices> {
    const price = this.prices.priceOf(planCode);
    const overage = this.prices.overagePriceOf(planCode);
    const amount = price ? await this.priceAmount(price) : null;
    return {
      monthlyPriceCents: amount ? Math.round(amount.decimal) : 0,
      currency: amount?.currency ?? null,
      // A metered price is per email, often in fractions of a cent.
      overagePer1000Cents: overage ? Math.round((await this.priceAmount(overage)).decimal * 1000) : 0,
    };
  }

  async createCustomer(customer: { teamId: string; name: string; email: string | null }): Promise<string> {
    const created = await this.call('create customer', () =>
      this.stripe.customers.create(
        {
          name: customer.name,
          metadata: { [TEAM_METADATA_KEY]: customer.teamId },
          ...(customer.email ? { email: customer.email } : {}),
        },
        { idempotencyKey: `mailroom-customer-${customer.teamId}` },
      ),
    );
    return created.id;
  }

  async checkout(customerId: string, teamId: string, order: CheckoutOrder): Promise<CheckoutSession> {
    const price = this.prices.priceOf(order.code)!;
    const overage = order.kind === 'plan' ? this.prices.overagePriceOf(order.code) : undefined;
    const lineItems: Stripe.Checkout.SessionCreateParams.LineItem[] = [
      { price, quantity: order.quantity },
      // A metered price takes no quantity: usage comes from the meter.
      ...(overage ? [{ price: overage }] : []),
    ];
    const session = await this.call('create checkout session', () =>
      this.stripe.checkout.sessions.create({
        mode: 'subscription',
        customer: customerId,
        client_reference_id: teamId,
        line_items: lineItems,
        success_url: order.successUrl,
        cancel_url: order.cancelUrl,
        metadata: { [TEAM_METADATA_KEY]: teamId, mailroom_code: order.code },
        subscription_data: { metadata: { [TEAM_METADATA_KEY]: teamId } },
      }),
    );
    if (!session.url)
      throw new ServiceUnavailableError('The payment provider answered a checkout session without a URL');
    return { object: 'checkout_session', url: session.url, expires_at: iso(session.expires_at) };
  }

  async portal(customerId: string, returnUrl: string): Promise<PortalSession> {
    const session = await this.call('create billing portal session', () =>
      this.stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl }),
    );
    return { object: 'portal_session', url: session.url };
  }

  async invoices(customerId: string): Promise<InvoiceList> {
    const page = await this.call('list invoices', () =>
      this.stripe.invoices.list({ customer: customerId, limit: 100 }),
    );
    return {
      object: 'list',
      has_more: page.has_more,
      data: page.data.map((invoice) => ({
        id: invoice.id,
        number: invoice.number,
        status: invoice.status,
        total_cents: invoice.total,
        currency: invoice.currency,
        created_at: iso(invoice.created),
        hosted_invoice_url: invoice.hosted_invoice_url ?? null,
        invoice_pdf: invoice.invoice_pdf ?? null,
      })),
    };
  }

  /**
   * The plan item moves to the new plan's price (Stripe prorates by default); the metered
   * overage item follows the plan (the old one removed, the new plan's added). A subscription
   * of add-ons only gets a plan item.
   */
  async changePlan(account: BillingAccount, planCode: string): Promise<SubscriptionSnapshot> {
    const planItem = account.items.find((item) => item.kind === 'plan');
    const newOverage = this.prices.overagePriceOf(planCode);
    const items: Stripe.SubscriptionUpdateParams.Item[] = [
      planItem ? { id: planItem.id, price: this.prices.priceOf(planCode)! } : { price: this.prices.priceOf(planCode)! },
      ...account.items
        .filter((item) => item.kind === 'overage' && item.price !== newOverage)
        .map((item) => ({ id: item.id, deleted: true })),
      ...(newOverage && !account.items.some((item) => item.price === newOverage) ? [{ price: newOverage }] : []),
    ];
    await this.call('change subscription plan', () =>
      this.stripe.subscriptions.update(account.subscriptionId!, { items }),
    );
    return this.readSubscription(account.subscriptionId!);
  }

  async addAddon(account: BillingAccount, addonCode: string, quantity: number): Promise<SubscriptionSnapshot> {
    const price = this.prices.priceOf(addonCode)!;
    const existing = account.items.find((item) => item.price === price);
    const subscription = account.subscriptionId!;
    if (existing) {
      await this.call('raise add-on quantity', () =>
        this.stripe.subscriptions.update(subscription, {
          items: [{ id: existing.id, quantity: existing.quantity + quantity }],
        }),
      );
    } else {
      await this.call('add subscription item', () =>
        this.stripe.subscriptionItems.create({ subscription, price, quantity }),
      );
    }
    return this.readSubscription(subscription);
  }

  parseWebhook(raw: Buffer, headers: Record<string, string | string[] | undefined>): ProviderEvent | null {
    const header = headers['stripe-signature'];
    const signature = Array.isArray(header) ? header[0] : header;
    if (!signature) throw new WebhookSignatureError('Missing Stripe-Signature header');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(raw, signature, this.settings.webhookSecret!);
    } catch (err) {
      throw new WebhookSignatureError(`Webhook signature does not verify: ${(err as Error).message}`);
    }
    return providerEvent(event);
  }

  async readSubscription(subscriptionId: string): Promise<SubscriptionSnapshot> {
    const subscription = await this.call('read subscription', () =>
      this.stripe.subscriptions.retrieve(subscriptionId, { expand: SUBSCRIPTION_EXPAND }),
    );
    return subscriptionSnapshot(subscription, this.prices);
  }

  /** A refusal because Stripe already holds an event with this identifier means it was accepted before. */
  async reportOverage(report: OverageReport): Promise<void> {
    try {
      await this.stripe.billing.meterEvents.create(
        {
          event_name: this.settings.meterEventName!,
          payload: { stripe_customer_id: report.customerId, value: String(report.quantity) },
          identifier: report.identifier,
          timestamp: Math.floor(report.timestamp.getTime() / 1000),
        },
        { idempotencyKey: report.identifier },
      );
    } catch (err) {
      if (isDuplicateMeterEvent(err)) return;
      throw stripeRefusal(this.deps.logger, 'report overage', err);
    }
  }

  /** A price's unit amount in cents (decimal: metered prices go below a cent) and currency, cached. */
  private async priceAmount(priceId: string): Promise<{ decimal: number; currency: string }> {
    const now = this.deps.clock.now().getTime();
    const cached = this.amounts.get(priceId);
    if (cached && now - cached.at < PRICE_TTL_MS) return cached;
    try {
      const price = await this.call('read price', () => this.stripe.prices.retrieve(priceId));
      const decimal =
        price.unit_amount_decimal !== null && price.unit_amount_decimal !== undefined
          ? Number(String(price.unit_amount_decimal))
          : (price.unit_amount ?? 0);
      const amount = { decimal, currency: price.currency, at: now };
      this.amounts.set(priceId, amount);
      return amount;
    } catch (err) {
      if (cached) return cached;
      throw err;
    }
  }

  private call<T>(what: string, call: () => Promise<T>): Promise<T> {
    return callStripe(this.deps.logger, what, call);
  }
}
