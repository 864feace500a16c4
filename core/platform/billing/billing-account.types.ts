/**
 * A team's account at the payment provider, as stored (billing_accounts): the customer, and the
 * last state read of its subscription. Provider-neutral: each adapter maps its own objects into
 * a SubscriptionState (see stripe/stripe-subscription-state.ts).
 */

/** What an item of the subscription pays for: the plan, an add-on, the plan's metered overage. */
export type SubscriptionItemKind = 'plan' | 'addon' | 'overage' | 'other';

export type SubscriptionItemState = {
  /** The provider's item id (changing a plan or a quantity names it). */
  id: string;
  /** The provider's price id. */
  price: string;
  kind: SubscriptionItemKind;
  /** The plan or add-on code the price is configured for; null for a price not in the configuration. */
  code: string | null;
  quantity: number;
};

/** The latest invoice's failed payment, while it stays unpaid (GET /billing `payment_state`). */
export type PaymentFailure = {
  invoice_id: string;
  amount_due_cents: number;
  currency: string;
  attempt_count: number;
  /** When the provider tries again (ISO), or null when it has stopped trying. */
  next_attempt_at: string | null;
};

export type PaymentMethodSummary = { present: boolean; brand: string | null; last4: string | null };

export type SubscriptionState = {
  subscriptionId: string | null;
  /** The provider's status (`active`, `trialing`, `past_due`, `unpaid`, `incomplete`, `canceled`...). */
  status: string | null;
  /** The plan the subscription pays for; null for add-ons only. */
  planCode: string | null;
  items: SubscriptionItemState[];
  currentPeriodStart: Date | null;
  currentPeriodEnd: Date | null;
  /** When the subscription ends on its own (cancelled at period end, or a cancel date). */
  cancelAt: Date | null;
  trialEndsAt: Date | null;
  collectionMethod: string | null;
  latestInvoiceId: string | null;
  latestInvoiceStatus: string | null;
  paymentFailure: PaymentFailure | null;
  paymentMethod: PaymentMethodSummary;
};

export type BillingAccount = SubscriptionState & {
  teamId: string;
  provider: string;
  customerId: string;
  createdAt: Date;
  updatedAt: Date;
};

export const NO_SUBSCRIPTION: SubscriptionState = {
  subscriptionId: null,
  status: null,
  planCode: null,
  items: [],
  currentPeriodStart: null,
  currentPeriodEnd: null,
  cancelAt: null,
  trialEndsAt: null,
  collectionMethod: null,
  latestInvoiceId: null,
  latestInvoiceStatus: null,
  paymentFailure: null,
  paymentMethod: { present: false, brand: null, last4: null },
};

/** Statuses of a subscription that is over: the team may check out again. */
const ENDED = new Set(['canceled', 'incomplete_expired']);
/** Statuses in which the subscription's plan applies (past_due: the provider is still retrying). */
const GRANTING = new Set(['active', 'trialing', 'past_due']);
/** Statuses in which nothing more is sold until the payment is settled. */
const HELD = new Set(['past_due', 'unpaid', 'incomplete', 'paused']);

/** Whether the team holds a subscription (checkout refused; plan change and add-ons work on it). */
export function hasSubscription(state: SubscriptionState | null | undefined): boolean {
  return Boolean(state?.subscriptionId && state.status && !ENDED.has(state.status));
}

/** The plan a subscription gives its team now, or null when it gives none (ended, unpaid, add-ons only). */
export function grantedPlan(state: SubscriptionState | null | undefined): string | null {
  return state?.status && GRANTING.has(state.status) ? state.planCode : null;
}

/** Whether purchases wait for a failed payment to be settled (storage_addon_purchase `held`). */
export function isHeld(state: SubscriptionState | null | undefined): boolean {
  return hasSubscription(state) && (HELD.has(state!.status!) || state!.paymentFailure !== null);
}
