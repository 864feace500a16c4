import type Stripe from 'stripe';
import type { PaymentFailure, PaymentMethodSummary, SubscriptionState } from '../billing-account.types.js';
import type { SubscriptionSnapshot } from '../billing-provider.js';
import type { StripePriceCatalog } from './stripe-prices.js';

/** The metadata key the appliance writes on customers and subscriptions it creates. */
export const TEAM_METADATA_KEY = 'mailroom_team_id';

const date = (seconds: number | null | undefined): Date | null =>
  typeof seconds === 'number' ? new Date(seconds * 1000) : null;
const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value === null || value === undefined ? null : typeof value === 'string' ? value : value.id;

/**
 * A Stripe subscription (read back from Stripe, `latest_invoice` and `default_payment_method`
 * expanded when Stripe answers them so) as the appliance stores it. The period is the plan
 * item's (Stripe keeps periods on items); the payment failure is the latest invoice's, while
 * it is open after a failed attempt.
 */
export function subscriptionSnapshot(
  subscription: Stripe.Subscription,
  prices: StripePriceCatalog,
): SubscriptionSnapshot {
  const items = subscription.items.data.map((item) => ({
    id: item.id,
    price: item.price.id,
    ...prices.describe(item.price.id),
    quantity: item.quantity ?? 1,
  }));
  const planItem = items.find((item) => item.kind === 'plan');
  const periodItem = subscription.items.data.find((item) => item.id === planItem?.id) ?? subscription.items.data[0];
  const periodEnd = date(periodItem?.current_period_end);
  const invoice = typeof subscription.latest_invoice === 'object' ? subscription.latest_invoice : null;
  const state: SubscriptionState = {
    subscriptionId: subscription.id,
    status: subscription.status,
    planCode: planItem?.code ?? null,
    items,
    currentPeriodStart: date(periodItem?.current_period_start),
    currentPeriodEnd: periodEnd,
    cancelAt: date(subscription.cancel_at) ?? (subscription.cancel_at_period_end ? periodEnd : null),
    trialEndsAt: subscription.status === 'trialing' ? date(subscription.trial_end) : null,
    collectionMethod: subscription.collection_method,
    latestInvoiceId: idOf(subscription.latest_invoice),
    latestInvoiceStatus: invoice?.status ?? null,
    paymentFailure: invoice ? paymentFailure(invoice) : null,
    paymentMethod: paymentMethod(subscription.default_payment_method),
  };
  return {
    customerId: idOf(subscription.customer)!,
    teamId: subscription.metadata?.[TEAM_METADATA_KEY] ?? null,
    createdAt: new Date(subscription.created * 1000),
    state,
  };
}

/** An invoice still open after Stripe tried to collect it: its payment failed. */
function paymentFailure(invoice: Stripe.Invoice): PaymentFailure | null {
  if (invoice.status !== 'open' || !invoice.attempted || invoice.attempt_count < 1) return null;
  return {
    invoice_id: invoice.id,
    amount_due_cents: invoice.amount_remaining,
    currency: invoice.currency,
    attempt_count: invoice.attempt_count,
    next_attempt_at: date(invoice.next_payment_attempt)?.toISOString() ?? null,
  };
}

function paymentMethod(method: Stripe.Subscription['default_payment_method']): PaymentMethodSummary {
  if (!method) return { present: false, brand: null, last4: null };
  if (typeof method === 'string') return { present: true, brand: null, last4: null };
  return { present: true, brand: method.card?.brand ?? null, last4: method.card?.last4 ?? null };
}
