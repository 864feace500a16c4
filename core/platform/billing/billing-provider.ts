import { ServiceUnavailableError } from '../../../lib/errors.js';
import type { BillingAccount, SubscriptionState } from './billing-account.types.js';

/**
 * What the paid billing routes, the provider's webhooks and the overage meter need from a
 * payment provider. The rules of the spec (which codes, which refusals, the return URLs, the
 * cache, what is stored and when) live in the provider-neutral services around it
 * (paid-billing.service.ts, billing-webhook.service.ts, overage-meter.service.ts); an adapter
 * only talks to its provider. Adding a provider is one adapter and one `billing.provider` value.
 *
 * Every method that reaches the provider throws ServiceUnavailableError (503) when it cannot be
 * reached, so nothing is half-done: the services store nothing before the provider answered.
 */
export interface BillingProvider {
  /** The `billing.provider` value, and the last part of the webhook path (/billing-webhooks/<name>). */
  readonly name: string;
  /** False for `none`: every paid route answers 503. */
  readonly configured: boolean;
  /** Whether overage is reported to a meter (the report-billing-overage job does nothing otherwise). */
  readonly meters: boolean;
  /** Whether a plan or add-on code has a price to sell it at. */
  sells(code: string): boolean;
  /** The plan's prices for GET /billing (0 when the plan has no price). */
  planPrices(planCode: string): Promise<PlanPrices>;
  /** A new customer for the team; the same one if two first uses race (idempotent per team). */
  createCustomer(customer: { teamId: string; name: string; email: string | null }): Promise<string>;
  checkout(customerId: string, teamId: string, order: CheckoutOrder): Promise<CheckoutSession>;
  portal(customerId: string, returnUrl: string): Promise<PortalSession>;
  invoices(customerId: string): Promise<InvoiceList>;
  /** Moves the subscription's plan item to the plan's price; answers the subscription as it is now. */
  changePlan(account: BillingAccount, planCode: string): Promise<SubscriptionSnapshot>;
  /** Adds the add-on to the subscription, or raises its quantity; answers the subscription as it is now. */
  addAddon(account: BillingAccount, addonCode: string, quantity: number): Promise<SubscriptionSnapshot>;
  /** Verifies a webhook delivery; null for an event type the appliance does not act on. */
  parseWebhook(raw: Buffer, headers: Record<string, string | string[] | undefined>): ProviderEvent | null;
  /** The subscription as the provider holds it now (webhooks re-read it rather than trust their snapshot). */
  readSubscription(subscriptionId: string): Promise<SubscriptionSnapshot>;
  /** Reports overage emails to the meter; `identifier` makes a repeated report a no-op at the provider. */
  reportOverage(report: OverageReport): Promise<void>;
}

/** `currency`: ISO 4217, lower-case as the provider writes it; null when the plan has no price. */
export type PlanPrices = { monthlyPriceCents: number; currency: string | null; overagePer1000Cents: number };

export type CheckoutOrder = {
  kind: 'plan' | 'addon';
  code: string;
  quantity: number;
  successUrl: string;
  cancelUrl: string;
};

export type CheckoutSession = { object: 'checkout_session'; url: string; expires_at: string };
export type PortalSession = { object: 'portal_session'; url: string };

export type Invoice = {
  id: string;
  number: string | null;
  status: string | null;
  total_cents: number;
  currency: string;
  created_at: string;
  hosted_invoice_url: string | null;
  invoice_pdf: string | null;
};
export type InvoiceList = { object: 'list'; has_more: boolean; data: Invoice[] };

/** A verified webhook event, reduced to what says which subscription to re-read. */
export type ProviderEvent = {
  id: string;
  type: string;
  subscriptionId: string | null;
  customerId: string | null;
};

/** A subscription read from the provider: whose it is, and its state. */
export type SubscriptionSnapshot = {
  customerId: string;
  /** The team id the appliance put in the subscription's metadata, if any. */
  teamId: string | null;
  /** When the provider created it (of two live subscriptions, the newer one is kept). */
  createdAt: Date;
  state: SubscriptionState;
};

export type OverageReport = { identifier: string; customerId: string; quantity: number; timestamp: Date };

/** A delivery whose signature does not verify: 400, nothing applied. */
export class WebhookSignatureError extends Error {}

const notConfigured = () =>
  new ServiceUnavailableError(
    'Billing is not configured on this appliance (billing.provider is none): plans are set by the operator',
  );

/** `billing.provider: none`: nothing can be charged; every paid route answers 503. */
export class NoBillingProvider implements BillingProvider {
  readonly name = 'none';
  readonly configured = false;
  readonly meters = false;
  sells(): boolean {
    return false;
  }
  async planPrices(): Promise<PlanPrices> {
    return { monthlyPriceCents: 0, currency: null, overagePer1000Cents: 0 };
  }
  async createCustomer(): Promise<string> {
    throw notConfigured();
  }
  async checkout(): Promise<CheckoutSession> {
    throw notConfigured();
  }
  async portal(): Promise<PortalSession> {
    throw notConfigured();
  }
  async invoices(): Promise<InvoiceList> {
    throw notConfigured();
  }
  async changePlan(): Promise<SubscriptionSnapshot> {
    throw notConfigured();
  }
  async addAddon(): Promise<SubscriptionSnapshot> {
    throw notConfigured();
  }
  parseWebhook(): ProviderEvent | null {
    throw notConfigured();
  }
  async readSubscription(): Promise<SubscriptionSnapshot> {
    throw notConfigured();
  }
  async reportOverage(): Promise<void> {
    throw notConfigured();
  }
}

export const notConfiguredError = notConfigured;
