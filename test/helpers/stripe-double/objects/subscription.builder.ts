import type Stripe from 'stripe';
import { newId } from '../ids-and-time.js';
import { buildList } from './list.builder.js';
import { planOf } from './price.builder.js';

/**
 * Where the periods live follows the SDK's API version: `current_period_start/end` are on each
 * subscription item, not on the subscription.
 */
export function buildSubscriptionItem(input: {
  subscriptionId: string;
  price: Stripe.Price;
  quantity: number;
  created: number;
  periodStart: number;
  periodEnd: number;
  metadata?: Record<string, string>;
}): Stripe.SubscriptionItem {
  return {
    id: newId.subscriptionItem(),
    object: 'subscription_item',
    billing_thresholds: null,
    created: input.created,
    current_period_end: input.periodEnd,
    current_period_start: input.periodStart,
    // Required by the SDK's type for its API version; Stripe's 2026-08 fixture predates it.
    current_trial: null,
    discounts: [],
    metadata: input.metadata ?? {},
    plan: planOf(input.price),
    price: input.price,
    // Stripe sends no quantity on a metered item (usage comes from its meter).
    ...(input.price.recurring?.usage_type === 'metered' ? {} : { quantity: input.quantity }),
    subscription: input.subscriptionId,
    tax_rates: [],
  };
}

export function itemsList(
  subscriptionId: string,
  items: Stripe.SubscriptionItem[],
): Stripe.ApiList<Stripe.SubscriptionItem> {
  return buildList(items, `/v1/subscription_items?subscription=${subscriptionId}`, false);
}

/** An active subscription, as Checkout creates it once the first invoice is paid. */
export function buildSubscription(input: {
  customer: Stripe.Customer;
  lines: Array<{ price: Stripe.Price; quantity: number }>;
  metadata: Record<string, string>;
  created: number;
  periodEnd: number;
  defaultPaymentMethod: string | null;
}): Stripe.Subscription {
  const id = newId.subscription();
  const items = input.lines.map((line) =>
    buildSubscriptionItem({
      subscriptionId: id,
      price: line.price,
      quantity: line.quantity,
      created: input.created,
      periodStart: input.created,
      periodEnd: input.periodEnd,
    }),
  );
  return {
    id,
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null },
    billing_cycle_anchor: input.created,
    billing_cycle_anchor_config: null,
    billing_mode: { flexible: null, type: 'classic' },
    billing_schedules: [],
    billing_thresholds: null,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    cancellation_details: { comment: null, feedback: null, feedback_option: null, reason: null },
    collection_method: 'charge_automatically',
    created: input.created,
    currency: input.lines[0]?.price.currency ?? 'usd',
    customer: input.customer.id,
    customer_account: null,
    days_until_due: null,
    default_payment_method: input.defaultPaymentMethod,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    ended_at: null,
    invoice_settings: {
      account_tax_ids: null,
      custom_fields: null,
      description: null,
      footer: null,
      issuer: { type: 'self' },
    },
    items: itemsList(id, items),
    latest_invoice: null,
    livemode: false,
    managed_payments: null,
    metadata: input.metadata,
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: 'off' },
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: null,
    schedule: null,
    start_date: input.created,
    status: 'active',
    test_clock: null,
    transfer_data: null,
    trial_end: null,
    trial_settings: { end_behavior: { billing_cycle_anchor: null, missing_payment_method: 'create_invoice' } },
    trial_start: null,
  };
}
