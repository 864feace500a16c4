import Stripe from 'stripe';
import type { Clock } from '../../../lib/clock.js';
import { newId, snapshot, unixSeconds } from './ids-and-time.js';
import type { CheckoutLine } from './objects/checkout-session.builder.js';
import type { DoubleInvoice } from './objects/invoice.builder.js';
import { buildPrice, type PriceInput, type ProductRecord } from './objects/price.builder.js';
import { buildEvent, type EventOf } from './objects/small-objects.builder.js';
import { noSuch } from './stripe-errors.js';

/** A Checkout Session with what Stripe keeps beside it: its line items and subscription_data. */
export type CheckoutRecord = {
  session: Stripe.Checkout.Session;
  lines: CheckoutLine[];
  subscriptionMetadata: Record<string, string>;
};

/** The request that caused a change, for an event's `request` field. */
export type RequestRef = { id: string | null; idempotency_key: string | null };

/**
 * The double's account: every object it has made, by id, and the events it owes the webhook
 * endpoint. Lookups throw Stripe's `resource_missing` error.
 */
export class StripeStore {
  readonly customers = new Map<string, Stripe.Customer>();
  readonly products = new Map<string, ProductRecord>();
  readonly prices = new Map<string, Stripe.Price>();
  readonly checkouts = new Map<string, CheckoutRecord>();
  readonly portalSessions = new Map<string, Stripe.BillingPortal.Session>();
  readonly subscriptions = new Map<string, Stripe.Subscription>();
  /** In creation order (lists answer newest first). */
  readonly invoices = new Map<string, DoubleInvoice>();
  readonly paymentMethods = new Map<string, Stripe.PaymentMethod>();
  /** Accepted meter events, in order. */
  readonly meterEvents: Stripe.Billing.MeterEvent[] = [];
  readonly portalConfiguration = newId.portalConfiguration();
  private queued: Stripe.Event[] = [];

  constructor(
    private readonly clock: Clock,
    /** The double's own base URL (hosted pages live there). */
    readonly baseUrl: () => string,
  ) {}

  /** Now, in Unix seconds. */
  now(): number {
    return unixSeconds(this.clock.now());
  }

  addPrice(input: PriceInput): Stripe.Price {
    let product = [...this.products.values()].find((p) => p.name === input.product);
    if (!product) {
      product = { id: newId.product(), name: input.product };
      this.products.set(product.id, product);
    }
    const price = buildPrice(input, product, this.now());
    this.prices.set(price.id, price);
    return price;
  }

  productName(price: Stripe.Price): string {
    return this.products.get(String(price.product))?.name ?? String(price.product);
  }

  customer(id: string, param?: string): Stripe.Customer {
    return found(this.customers.get(id), 'customer', id, param);
  }

  price(id: string, param?: string): Stripe.Price {
    return found(this.prices.get(id), 'price', id, param);
  }

  checkout(id: string, param?: string): CheckoutRecord {
    const record = found(this.checkouts.get(id), 'checkout.session', id, param);
    // Stripe expires an open session at expires_at; its URL stops working then.
    if (record.session.status === 'open' && this.now() >= record.session.expires_at) record.session.status = 'expired';
    return record;
  }

  subscription(id: string, param?: string): Stripe.Subscription {
    return found(this.subscriptions.get(id), 'subscription', id, param);
  }

  invoice(id: string, param?: string): DoubleInvoice {
    return found(this.invoices.get(id), 'invoice', id, param);
  }

  paymentMethod(id: string): Stripe.PaymentMethod {
    return found(this.paymentMethods.get(id), 'payment_method', id);
  }

  /** The next invoice number for a customer (`PREFIX-0001`), as Stripe numbers per customer. */
  nextInvoiceNumber(customer: Stripe.Customer): string {
    const sequence = customer.next_invoice_sequence ?? 1;
    customer.next_invoice_sequence = sequence + 1;
    return `${customer.invoice_prefix}-${String(sequence).padStart(4, '0')}`;
  }

  /** Queues a webhook event carrying a snapshot of `object` as it is now. */
  announce<T extends Stripe.Event['type']>(
    type: T,
    object: EventOf<T>['data']['object'],
    options: { previousAttributes?: Record<string, unknown>; request?: RequestRef } = {},
  ): EventOf<T> {
    const event = buildEvent({
      type,
      created: this.now(),
      apiVersion: Stripe.API_VERSION,
      object: snapshot(object),
      ...(options.previousAttributes ? { previousAttributes: snapshot(options.previousAttributes) } : {}),
      ...(options.request ? { request: options.request } : {}),
    });
    this.queued.push(event);
    return event;
  }

  /** The queued events, oldest first, and an empty queue. */
  takeEvents(): Stripe.Event[] {
    const events = this.queued;
    this.queued = [];
    return events;
  }
}

function found<T>(value: T | undefined, kind: string, id: string, param?: string): T {
  if (value === undefined) throw noSuch(kind, id, param);
  return value;
}
