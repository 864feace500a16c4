import Stripe from 'stripe';
import { systemClock, type Clock } from '../../../lib/clock.js';
import { apiRoutes } from './api-routes.js';
import {
  cancelSubscription,
  completeCheckout,
  failPayment,
  payInvoice,
  type CompletedCheckout,
} from './billing-lifecycle.js';
import { hostedPage } from './hosted-pages.js';
import { StripeDoubleServer, type RecordedRequest } from './http-server.js';
import { snapshot } from './ids-and-time.js';
import type { CardDetails } from './objects/customer.builder.js';
import type { DoubleInvoice } from './objects/invoice.builder.js';
import type { PriceInput } from './objects/price.builder.js';
import type { StripeErrorBody } from './stripe-errors.js';
import { StripeStore } from './stripe-store.js';
import { deliverTo, signDelivery, type SignedDelivery, type SignOptions } from './webhook-delivery.js';

export type { CompletedCheckout, DoubleInvoice, PriceInput, RecordedRequest, SignedDelivery, StripeErrorBody };

export const DEFAULT_SECRET_KEY = 'sk_test_51MailroomStripeDouble0000000000000000';
export const DEFAULT_WEBHOOK_SECRET = 'whsec_mailroomStripeDoubleWebhookSecret000000';

export type StripeDoubleOptions = {
  secretKey?: string;
  webhookSecret?: string;
  /** The clock Stripe's timestamps come from (a test's movable clock keeps both sides agreeing). */
  clock?: Clock;
};

/**
 * A local Stripe for tests: the part of Stripe's API the billing adapter calls, answered with
 * objects in Stripe's published shapes (the `stripe` SDK's types, field for field with Stripe's
 * fixtures), plus the controls a test needs to make Stripe-side things happen and to deliver the
 * webhooks Stripe would send for them. Point the official SDK at it with `stripeOptions`.
 */
export class StripeDouble {
  readonly host = '127.0.0.1';
  readonly protocol = 'http' as const;
  readonly secretKey: string;
  readonly webhookSecret: string;
  /** Everything the double holds, for assertions (customers, subscriptions, invoices...). */
  readonly store: StripeStore;
  private readonly server: StripeDoubleServer;
  private closed = false;

  constructor(options: StripeDoubleOptions = {}) {
    this.secretKey = options.secretKey ?? DEFAULT_SECRET_KEY;
    this.webhookSecret = options.webhookSecret ?? DEFAULT_WEBHOOK_SECRET;
    this.store = new StripeStore(options.clock ?? systemClock, () => this.url);
    this.server = new StripeDoubleServer(this.secretKey, apiRoutes(this.store), (path) => hostedPage(this.store, path));
  }

  async listen(): Promise<void> {
    await this.server.listen(this.host);
  }

  get port(): number {
    return this.server.port;
  }

  get url(): string {
    return `${this.protocol}://${this.host}:${this.port}`;
  }

  /** What to pass as the second argument of `new Stripe(secretKey, ...)`. */
  get stripeOptions(): { host: string; port: number; protocol: 'http'; maxNetworkRetries: number } {
    return { host: this.host, port: this.port, protocol: this.protocol, maxNetworkRetries: 0 };
  }

  /** A `stripe` SDK client pointed at the double. */
  client(): Stripe {
    return new Stripe(this.secretKey, this.stripeOptions);
  }

  /** Every request received, oldest first. */
  get requests(): RecordedRequest[] {
    return this.server.requests;
  }

  requestsTo(pathPrefix: string, method?: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path.startsWith(pathPrefix) && (!method || r.method === method.toUpperCase()));
  }

  /** Accepted billing meter events, in order. */
  get meterEvents(): Stripe.Billing.MeterEvent[] {
    return this.store.meterEvents;
  }

  /**
   * Registers a price (and its product, by name) the way the operator set them up in Stripe.
   * This and the controls below return JSON copies, as the wire carries them (decimals as strings).
   */
  addPrice(input: PriceInput): Stripe.Price {
    return snapshot(this.store.addPrice(input));
  }

  /** While on, every connection is destroyed at once: the SDK sees a connection error. */
  unreachable(on: boolean): void {
    this.server.setUnreachable(on);
  }

  /** Connections destroyed while unreachable. */
  get refusedConnections(): number {
    return this.server.refusedConnections;
  }

  /** The next `method path` request (exact path) answers `status` with Stripe's error body `error`. */
  failNext(method: string, path: string, status: number, error: StripeErrorBody): void {
    this.server.failNext(method, path, status, error);
  }

  completeCheckout(sessionId: string, options: { paymentMethod?: CardDetails } = {}): CompletedCheckout {
    return completeCheckout(this.store, sessionId, options);
  }

  failPayment(subscriptionId: string): DoubleInvoice {
    return failPayment(this.store, subscriptionId);
  }

  payInvoice(invoiceId: string): DoubleInvoice {
    return payInvoice(this.store, invoiceId);
  }

  cancelSubscription(subscriptionId: string): Stripe.Subscription {
    return cancelSubscription(this.store, subscriptionId);
  }

  /** The events Stripe would have sent since the last call, oldest first; the queue is emptied. */
  takeEvents(): Stripe.Event[] {
    return this.store.takeEvents();
  }

  /** An event (or any payload text) signed as Stripe signs deliveries, with this double's webhook secret by default. */
  signedDelivery(event: Stripe.Event | string, options: SignOptions = {}): SignedDelivery {
    return signDelivery(event, options.secret ?? this.webhookSecret, options.timestamp);
  }

  /** POSTs the signed event to `targetUrl` and returns the endpoint's response. */
  deliver(targetUrl: string, event: Stripe.Event | string, options: SignOptions = {}): Promise<Response> {
    return deliverTo(targetUrl, this.signedDelivery(event, options));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.server.close();
  }
}

export async function startStripeDouble(options: StripeDoubleOptions = {}): Promise<StripeDouble> {
  const double = new StripeDouble(options);
  await double.listen();
  return double;
}
