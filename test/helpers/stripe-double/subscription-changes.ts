import type Stripe from 'stripe';
import { arr, mergeMetadata, obj, str, type Form } from './form-encoding.js';
import { snapshot } from './ids-and-time.js';
import { buildSubscriptionItem, itemsList } from './objects/subscription.builder.js';
import { planOf } from './objects/price.builder.js';
import { allowOnly, boolean, integer, metadata, oneOf, PRORATION_BEHAVIORS, requiredString } from './params.js';
import { invalidRequest, noSuch } from './stripe-errors.js';
import type { RequestRef, StripeStore } from './stripe-store.js';

/**
 * The adapter's own changes to a subscription (POST /v1/subscriptions/:id and
 * POST /v1/subscription_items), validated as Stripe does, each announced as
 * `customer.subscription.updated` with `previous_attributes`. Proration is accepted and recorded
 * with the request (the adapter's tests read `proration_behavior` there); the double makes no
 * proration invoice items.
 */

function refuseWhenCanceled(subscription: Stripe.Subscription): void {
  if (subscription.status === 'canceled') {
    throw invalidRequest('A canceled subscription can only update its cancellation_details and metadata.');
  }
}

function quantityFor(price: Stripe.Price, value: Form[string] | undefined, param: string): number {
  const quantity = integer(value, param, 0, 999_999);
  if (price.recurring?.usage_type === 'metered') {
    if (quantity !== undefined) throw invalidRequest('You cannot set the quantity for metered plans.', param);
    return 0;
  }
  return quantity ?? 1;
}

function refuseDuplicatePrice(
  subscription: Stripe.Subscription,
  items: Stripe.SubscriptionItem[],
  price: Stripe.Price,
  param: string,
): void {
  if (items.some((item) => item.price.id === price.id)) {
    throw invalidRequest(`Cannot add multiple subscription items with the same price: ${price.id}`, param);
  }
  if (price.currency !== subscription.currency) {
    throw invalidRequest('Cannot combine currencies on a single subscription.', param);
  }
  if (!price.recurring)
    throw invalidRequest(`The price ${price.id} is not recurring: a subscription needs recurring prices.`, param);
}

function announceUpdate(
  store: StripeStore,
  subscription: Stripe.Subscription,
  previous: Record<string, unknown>,
  request: RequestRef,
): void {
  if (Object.keys(previous).length === 0) return; // Stripe announces changes only
  store.announce('customer.subscription.updated', subscription, { previousAttributes: previous, request });
}

function applyItems(store: StripeStore, subscription: Stripe.Subscription, value: Form[string]): boolean {
  const entries = arr(value);
  if (!entries) throw invalidRequest('Invalid array', 'items');
  const now = store.now();
  const before = JSON.stringify(subscription.items.data);
  // Copies: a refused entry leaves the subscription as it was (Stripe applies all or nothing).
  const items = subscription.items.data.map((item) => ({ ...item }));
  const period = items[0] ?? null;
  entries.forEach((entry, i) => {
    const param = `items[${i}]`;
    const form = obj(entry);
    if (!form) throw invalidRequest('Invalid object', param);
    allowOnly(form, ['id', 'price', 'quantity', 'deleted', 'metadata'], param);
    const id = str(form.id);
    if (id) {
      const index = items.findIndex((item) => item.id === id);
      if (index < 0) throw noSuch('subscription item', id, `${param}[id]`);
      const item = items[index] as Stripe.SubscriptionItem;
      if (boolean(form.deleted, `${param}[deleted]`)) {
        items.splice(index, 1);
        return;
      }
      if (form.price !== undefined) {
        // A price change keeps the item (and its id): Stripe swaps the price in place.
        const price = store.price(requiredString(form, 'price', `${param}[price]`), `${param}[price]`);
        if (price.id !== item.price.id) {
          refuseDuplicatePrice(subscription, items, price, `${param}[price]`);
          item.price = price;
          item.plan = planOf(price);
        }
      }
      if (form.quantity !== undefined || form.price !== undefined) {
        const quantity = quantityFor(item.price, form.quantity, `${param}[quantity]`);
        if (item.price.recurring?.usage_type === 'metered') delete item.quantity;
        else item.quantity = form.quantity !== undefined ? quantity : (item.quantity ?? 1);
      }
      if (form.metadata !== undefined) item.metadata = mergeMetadata(item.metadata, form.metadata);
      return;
    }
    const price = store.price(requiredString(form, 'price', `${param}[price]`), `${param}[price]`);
    refuseDuplicatePrice(subscription, items, price, `${param}[price]`);
    items.push(
      buildSubscriptionItem({
        subscriptionId: subscription.id,
        price,
        quantity: quantityFor(price, form.quantity, `${param}[quantity]`),
        created: now,
        periodStart: period?.current_period_start ?? now,
        periodEnd: period?.current_period_end ?? now,
        metadata: metadata(form.metadata, `${param}[metadata]`),
      }),
    );
  });
  if (items.length === 0)
    throw invalidRequest('A subscription needs at least one item: cancel it instead of deleting every item.', 'items');
  subscription.items = itemsList(subscription.id, items);
  return JSON.stringify(items) !== before;
}

/** POST /v1/subscriptions/:id */
export function updateSubscription(
  store: StripeStore,
  id: string,
  body: Form,
  request: RequestRef,
): Stripe.Subscription {
  allowOnly(body, ['items', 'proration_behavior', 'metadata', 'cancel_at_period_end', 'expand']);
  const subscription = store.subscription(id);
  oneOf(body.proration_behavior, 'proration_behavior', PRORATION_BEHAVIORS);
  const cancelAtPeriodEnd = boolean(body.cancel_at_period_end, 'cancel_at_period_end');
  if (body.items !== undefined || cancelAtPeriodEnd !== undefined) refuseWhenCanceled(subscription);
  const previous: Record<string, unknown> = {};
  if (body.items !== undefined) {
    const before = snapshot(subscription.items);
    if (applyItems(store, subscription, body.items)) previous.items = before;
  }
  if (body.metadata !== undefined) {
    const next = mergeMetadata(subscription.metadata, body.metadata);
    if (JSON.stringify(next) !== JSON.stringify(subscription.metadata)) previous.metadata = subscription.metadata;
    subscription.metadata = next;
  }
  if (cancelAtPeriodEnd !== undefined && cancelAtPeriodEnd !== subscription.cancel_at_period_end) {
    previous.cancel_at_period_end = subscription.cancel_at_period_end;
    previous.cancel_at = subscription.cancel_at;
    subscription.cancel_at_period_end = cancelAtPeriodEnd;
    // Stripe schedules the end at the current period's end (the latest of the items' periods).
    subscription.cancel_at = cancelAtPeriodEnd
      ? Math.max(...subscription.items.data.map((i) => i.current_period_end))
      : null;
    subscription.cancellation_details = {
      ...subscription.cancellation_details!,
      reason: cancelAtPeriodEnd ? 'cancellation_requested' : null,
    };
  }
  announceUpdate(store, subscription, previous, request);
  return subscription;
}

/** POST /v1/subscription_items */
export function addSubscriptionItem(store: StripeStore, body: Form, request: RequestRef): Stripe.SubscriptionItem {
  allowOnly(body, ['subscription', 'price', 'quantity', 'proration_behavior', 'metadata', 'expand']);
  const subscription = store.subscription(requiredString(body, 'subscription'), 'subscription');
  refuseWhenCanceled(subscription);
  oneOf(body.proration_behavior, 'proration_behavior', PRORATION_BEHAVIORS);
  const price = store.price(requiredString(body, 'price'), 'price');
  refuseDuplicatePrice(subscription, subscription.items.data, price, 'price');
  const period = subscription.items.data[0];
  const now = store.now();
  const item = buildSubscriptionItem({
    subscriptionId: subscription.id,
    price,
    quantity: quantityFor(price, body.quantity, 'quantity'),
    created: now,
    periodStart: period?.current_period_start ?? now,
    periodEnd: period?.current_period_end ?? now,
    metadata: metadata(body.metadata),
  });
  const before = snapshot(subscription.items);
  subscription.items = itemsList(subscription.id, [...subscription.items.data, item]);
  announceUpdate(store, subscription, { items: before }, request);
  return item;
}
