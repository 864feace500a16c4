import Stripe from 'stripe';
import { newId } from '../ids-and-time.js';
import { buildList } from './list.builder.js';

/**
 * Stripe's fixture for an invoice still carries a top-level `subscription` (null or an id) that
 * the SDK's type for its API version no longer declares (it reads
 * `parent.subscription_details.subscription`); the double sends both.
 */
export type DoubleInvoice = Stripe.Invoice & { subscription: string | null };

const SYMBOLS: Record<string, string> = { usd: '$', eur: '€', gbp: '£' };

function money(cents: number, currency: string): string {
  const amount = (cents / 100).toFixed(2);
  const symbol = SYMBOLS[currency];
  return symbol ? `${symbol}${amount}` : `${amount} ${currency.toUpperCase()}`;
}

/** Stripe's wording for a subscription line: "1 × Pro (at $20.00 / month)". */
function describe(item: Stripe.SubscriptionItem, productName: string, quantity: number): string {
  const price = item.price;
  const interval = price.recurring?.interval ?? 'month';
  return `${quantity} × ${productName} (at ${money(price.unit_amount ?? 0, price.currency)} / ${interval})`;
}

function buildLine(invoiceId: string, item: Stripe.SubscriptionItem, productName: string): Stripe.InvoiceLineItem {
  // A metered item is billed in arrears from its meter: nothing on an invoice made at a period's start.
  const metered = item.price.recurring?.usage_type === 'metered';
  const quantity = metered ? 0 : (item.quantity ?? 1);
  const amount = (item.price.unit_amount ?? 0) * quantity;
  return {
    id: newId.invoiceLine(),
    object: 'line_item',
    amount,
    currency: item.price.currency,
    description: describe(item, productName, quantity),
    discount_amounts: [],
    discountable: true,
    discounts: [],
    invoice: invoiceId,
    livemode: false,
    metadata: {},
    parent: {
      invoice_item_details: null,
      subscription_item_details: {
        invoice_item: null,
        proration: false,
        proration_details: { credited_items: null },
        subscription: item.subscription,
        subscription_item: item.id,
      },
      type: 'subscription_item_details',
    },
    period: { end: item.current_period_end, start: item.current_period_start },
    pretax_credit_amounts: [],
    pricing: {
      price_details: { price: item.price.id, product: String(item.price.product) },
      type: 'price_details',
      unit_amount_decimal: item.price.unit_amount_decimal,
    },
    quantity,
    quantity_decimal: Stripe.Decimal.from(String(quantity)),
    subscription: item.subscription,
    subtotal: amount,
    taxes: [],
  };
}

/** A finalized subscription invoice for the subscription's items, open (to be paid) or paid. */
export function buildSubscriptionInvoice(input: {
  baseUrl: string;
  created: number;
  customer: Stripe.Customer;
  subscription: Stripe.Subscription;
  productName: (price: Stripe.Price) => string;
  billingReason: Stripe.Invoice.BillingReason;
  number: string;
}): DoubleInvoice {
  const id = newId.invoice();
  const subscription = input.subscription;
  const lines = subscription.items.data.map((item) => buildLine(id, item, input.productName(item.price)));
  const total = lines.reduce((sum, line) => sum + line.amount, 0);
  return {
    id,
    object: 'invoice',
    account_country: 'US',
    account_name: 'Stripe double',
    account_tax_ids: null,
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: total,
    amount_shipping: 0,
    application: null,
    attempt_count: 0,
    attempted: false,
    auto_advance: true,
    automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
    automatically_finalizes_at: null,
    billing_reason: input.billingReason,
    collection_method: 'charge_automatically',
    created: input.created,
    currency: subscription.currency,
    custom_fields: null,
    customer: input.customer.id,
    customer_account: null,
    customer_address: null,
    customer_email: input.customer.email,
    customer_name: input.customer.name ?? null,
    customer_phone: null,
    customer_shipping: null,
    customer_tax_exempt: 'none',
    customer_tax_ids: [],
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    due_date: null,
    effective_at: input.created,
    ending_balance: 0,
    footer: null,
    from_invoice: null,
    hosted_invoice_url: `${input.baseUrl}/invoices/${id}`,
    invoice_pdf: `${input.baseUrl}/invoices/${id}/pdf`,
    issuer: { type: 'self' },
    last_finalization_error: null,
    latest_revision: null,
    lines: buildList(lines, `/v1/invoices/${id}/lines`, false),
    livemode: false,
    metadata: {},
    next_payment_attempt: input.created,
    number: input.number,
    on_behalf_of: null,
    parent: {
      quote_details: null,
      subscription_details: { metadata: subscription.metadata, subscription: subscription.id },
      type: 'subscription_details',
    },
    payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
    period_end: input.created,
    period_start: input.created,
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    receipt_number: null,
    rendering: null,
    shipping_cost: null,
    shipping_details: null,
    starting_balance: 0,
    statement_descriptor: null,
    status: 'open',
    status_transitions: { finalized_at: input.created, marked_uncollectible_at: null, paid_at: null, voided_at: null },
    subscription: subscription.id,
    subtotal: total,
    subtotal_excluding_tax: total,
    test_clock: null,
    total,
    total_discount_amounts: [],
    total_excluding_tax: total,
    total_pretax_credit_amounts: [],
    total_taxes: [],
    webhooks_delivered_at: input.created,
  };
}

/** The invoice paid in full at `at` (a successful charge attempt). */
export function markPaid(invoice: DoubleInvoice, at: number): void {
  invoice.status = 'paid';
  invoice.amount_paid = invoice.amount_due;
  invoice.amount_remaining = 0;
  invoice.attempted = true;
  invoice.attempt_count += 1;
  invoice.auto_advance = false;
  invoice.next_payment_attempt = null;
  invoice.status_transitions.paid_at = at;
}

/** A failed charge attempt: the invoice stays open and Smart Retries schedule the next attempt. */
export function markAttemptFailed(invoice: DoubleInvoice, at: number): void {
  invoice.attempted = true;
  invoice.attempt_count += 1;
  invoice.next_payment_attempt = at + 3 * 24 * 3600;
}
