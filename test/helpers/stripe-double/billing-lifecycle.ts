import type Stripe from 'stripe';
import { addMonths, newId, snapshot } from './ids-and-time.js';
import { buildCardPaymentMethod, buildCustomer, type CardDetails } from './objects/customer.builder.js';
import {
  buildSubscriptionInvoice,
  markAttemptFailed,
  markPaid,
  type DoubleInvoice,
} from './objects/invoice.builder.js';
import { buildSubscription } from './objects/subscription.builder.js';
import type { StripeStore } from './stripe-store.js';

/**
 * What happens at Stripe outside the API the adapter calls (a customer paying on the hosted
 * page, a renewal charge failing, a retry succeeding, a cancellation from the portal), each
 * queuing the events Stripe sends for it. A control used wrongly (completing a session twice)
 * is a mistake in the test, so it throws a plain Error. Each returns a copy of what it made.
 */

export type CompletedCheckout = {
  session: Stripe.Checkout.Session;
  customer: Stripe.Customer | null;
  paymentMethod: Stripe.PaymentMethod | null;
  subscription: Stripe.Subscription | null;
  invoice: DoubleInvoice | null;
};

function invoiceFor(
  store: StripeStore,
  subscription: Stripe.Subscription,
  reason: Stripe.Invoice.BillingReason,
): DoubleInvoice {
  const customer = store.customer(String(subscription.customer));
  const invoice = buildSubscriptionInvoice({
    baseUrl: store.baseUrl(),
    created: store.now(),
    customer,
    subscription,
    productName: (price) => store.productName(price),
    billingReason: reason,
    number: store.nextInvoiceNumber(customer),
  });
  store.invoices.set(invoice.id, invoice);
  return invoice;
}

/**
 * The customer pays on the hosted page. Subscription mode: a card saved as the customer's (and
 * the subscription's) default, an active subscription for one month with the session's line
 * items and `subscription_data.metadata`, a paid first invoice; events
 * `checkout.session.completed`, `customer.subscription.created`, `invoice.paid`. Payment mode:
 * the session alone.
 */
export function completeCheckout(
  store: StripeStore,
  sessionId: string,
  options: { paymentMethod?: CardDetails } = {},
): CompletedCheckout {
  const record = store.checkout(sessionId);
  const session = record.session;
  if (session.status !== 'open') throw new Error(`checkout session ${sessionId} is ${session.status}, not open`);
  const now = store.now();
  let customer = session.customer ? store.customer(String(session.customer)) : null;
  if (!customer && session.mode === 'subscription') {
    // customer_creation: Checkout makes the customer from what was typed on the page.
    customer = buildCustomer({
      created: now,
      email: session.customer_email ?? 'customer@example.com',
      name: null,
      description: null,
      phone: null,
      metadata: {},
    });
    store.customers.set(customer.id, customer);
  }
  session.status = 'complete';
  session.payment_status = 'paid';
  session.customer = customer?.id ?? null;
  session.customer_details = {
    address: { city: null, country: 'US', line1: null, line2: null, postal_code: '94103', state: null },
    business_name: null,
    email: customer?.email ?? session.customer_email ?? 'customer@example.com',
    individual_name: null,
    name: customer?.name ?? null,
    phone: null,
    tax_exempt: 'none',
    tax_ids: [],
  };

  if (session.mode !== 'subscription' || !customer) {
    session.payment_intent = newId.paymentIntent();
    store.announce('checkout.session.completed', session);
    return snapshot({ session, customer, paymentMethod: null, subscription: null, invoice: null });
  }

  const paymentMethod = buildCardPaymentMethod({ created: now, customer, card: options.paymentMethod ?? {} });
  store.paymentMethods.set(paymentMethod.id, paymentMethod);
  customer.invoice_settings.default_payment_method = paymentMethod.id;
  const subscription = buildSubscription({
    customer,
    lines: record.lines,
    metadata: record.subscriptionMetadata,
    created: now,
    periodEnd: addMonths(now, 1),
    defaultPaymentMethod: paymentMethod.id,
  });
  store.subscriptions.set(subscription.id, subscription);
  customer.currency ??= subscription.currency;
  const invoice = invoiceFor(store, subscription, 'subscription_create');
  markPaid(invoice, now);
  subscription.latest_invoice = invoice.id;
  session.subscription = subscription.id;
  session.invoice = invoice.id;

  store.announce('checkout.session.completed', session);
  store.announce('customer.subscription.created', subscription);
  store.announce('invoice.paid', invoice);
  return snapshot({ session, customer, paymentMethod, subscription, invoice });
}

/** Sets the subscription's status, announcing `customer.subscription.updated` when it changed. */
function setStatus(
  store: StripeStore,
  subscription: Stripe.Subscription,
  status: Stripe.Subscription.Status,
  previous: Record<string, unknown>,
): void {
  if (subscription.status !== status) previous.status = subscription.status;
  subscription.status = status;
  if (Object.keys(previous).length > 0) {
    store.announce('customer.subscription.updated', subscription, { previousAttributes: previous });
  }
}

/**
 * A charge for the subscription fails: its open invoice (a new `subscription_cycle` invoice if it
 * has none) records one more failed attempt, the subscription goes `past_due`, the customer is
 * delinquent. Events: `invoice.payment_failed`, then `customer.subscription.updated` when the
 * subscription changed (a second failure on a past_due subscription changes nothing there, and
 * Stripe sends no update for it).
 */
export function failPayment(store: StripeStore, subscriptionId: string): DoubleInvoice {
  const subscription = store.subscription(subscriptionId);
  if (subscription.status === 'canceled') throw new Error(`subscription ${subscriptionId} is canceled`);
  const previous: Record<string, unknown> = {};
  let invoice = [...store.invoices.values()].find((i) => i.subscription === subscription.id && i.status === 'open');
  if (!invoice) {
    invoice = invoiceFor(store, subscription, 'subscription_cycle');
    previous.latest_invoice = subscription.latest_invoice;
    subscription.latest_invoice = invoice.id;
  }
  markAttemptFailed(invoice, store.now());
  store.customer(String(subscription.customer)).delinquent = true;
  store.announce('invoice.payment_failed', invoice);
  setStatus(store, subscription, 'past_due', previous);
  return snapshot(invoice);
}

/**
 * An open invoice is paid (a retry or the customer updating the card). Events: `invoice.paid`,
 * and `customer.subscription.updated` when its subscription goes back to active.
 */
export function payInvoice(store: StripeStore, invoiceId: string): DoubleInvoice {
  const invoice = store.invoice(invoiceId);
  if (invoice.status !== 'open') throw new Error(`invoice ${invoiceId} is ${invoice.status}, not open`);
  markPaid(invoice, store.now());
  const customer = store.customer(String(invoice.customer));
  const stillOwing = [...store.invoices.values()].some((i) => i.customer === customer.id && i.status === 'open');
  customer.delinquent = stillOwing;
  store.announce('invoice.paid', invoice);
  const subscription = invoice.subscription ? store.subscription(invoice.subscription) : null;
  if (subscription && (subscription.status === 'past_due' || subscription.status === 'unpaid')) {
    setStatus(store, subscription, 'active', {});
  }
  return snapshot(invoice);
}

/** The subscription ends now (cancelled in the portal or the dashboard): `customer.subscription.deleted`. */
export function cancelSubscription(store: StripeStore, subscriptionId: string): Stripe.Subscription {
  const subscription = store.subscription(subscriptionId);
  if (subscription.status === 'canceled') throw new Error(`subscription ${subscriptionId} is already canceled`);
  const now = store.now();
  subscription.status = 'canceled';
  subscription.canceled_at = now;
  subscription.ended_at = now;
  subscription.cancel_at_period_end = false;
  subscription.cancellation_details = { ...subscription.cancellation_details!, reason: 'cancellation_requested' };
  store.announce('customer.subscription.deleted', subscription);
  return snapshot(subscription);
}
