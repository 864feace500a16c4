import type Stripe from 'stripe';
import type { Clock } from '../../lib/clock.js';
import { request } from './http.js';
import { startStripeDouble, type StripeDouble } from './stripe-double/index.js';
import { startTestApp, type TestApp } from './test-app.js';

/**
 * An appliance with billing.provider `stripe`, pointed at a local Stripe double (both on the same
 * clock), with the prices the operator would have created in Stripe: Pro $20 and Scale $90 a
 * month, Pro's metered overage at 1 cent an email, seats $5, 100 GB of inbox storage $10.
 */
export type BillingApp = {
  app: TestApp;
  stripe: StripeDouble;
  webhookUrl: string;
  /** Delivers every event Stripe queued, in order; fails the test unless each answers 200. */
  deliverAll(): Promise<Array<{ type: string; status: number; body: unknown }>>;
  /** POST /billing/checkout for the plan or add-on, paid on the hosted page, and its events delivered. */
  subscribe(
    token: string,
    order: { plan_code?: string; addon_code?: string; quantity?: number },
  ): Promise<Stripe.Subscription>;
  close(): Promise<void>;
};

export const PRICES = {
  pro: 'price_pro_monthly',
  scale: 'price_scale_monthly',
  proOverage: 'price_pro_overage',
  seat: 'price_inbox_seat',
  storage: 'price_inbox_storage_100gb',
} as const;

export async function startBillingApp(
  options: {
    clock?: Clock;
    storage?: boolean;
    meter?: boolean;
    env?: Record<string, string>;
    /** More configuration sections (e.g. `ai`) beside `billing`. */
    config?: Record<string, unknown>;
  } = {},
): Promise<BillingApp> {
  const stripe = await startStripeDouble({ clock: options.clock });
  const monthly = { interval: 'month' as const };
  stripe.addPrice({ id: PRICES.pro, unit_amount: 2000, recurring: monthly, product: 'Mailroom Pro' });
  stripe.addPrice({ id: PRICES.scale, unit_amount: 9000, recurring: monthly, product: 'Mailroom Scale' });
  stripe.addPrice({
    id: PRICES.proOverage,
    unit_amount: 1,
    recurring: { interval: 'month', usage_type: 'metered', meter: 'mtr_test_emails' },
    product: 'Mailroom Pro overage',
  });
  stripe.addPrice({ id: PRICES.seat, unit_amount: 500, recurring: monthly, product: 'Inbox seat' });
  stripe.addPrice({ id: PRICES.storage, unit_amount: 1000, recurring: monthly, product: 'Inbox storage 100 GB' });
  const prices: Record<string, string> = { pro: PRICES.pro, scale: PRICES.scale, inbox_seat: PRICES.seat };
  if (options.storage !== false) prices.inbox_storage_100gb = PRICES.storage;
  const app = await startTestApp({
    clock: options.clock,
    config: {
      ...options.config,
      billing: {
        provider: 'stripe',
        stripe: {
          prices,
          ...(options.meter ? { meterEventName: 'mailroom_emails', overagePrices: { pro: PRICES.proOverage } } : {}),
          host: stripe.host,
          port: stripe.port,
          protocol: stripe.protocol,
          maxNetworkRetries: 0,
        },
      },
    },
    env: {
      MAILROOM_STRIPE_SECRET_KEY: stripe.secretKey,
      MAILROOM_STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
      ...options.env,
    },
  });
  const webhookUrl = `${app.url}/billing-webhooks/stripe`;
  const deliverAll = async () => {
    const answers = [];
    for (const event of stripe.takeEvents()) {
      const res = await stripe.deliver(webhookUrl, event);
      const body = await res.json();
      if (res.status !== 200) throw new Error(`${event.type} answered ${res.status}: ${JSON.stringify(body)}`);
      answers.push({ type: event.type, status: res.status, body });
    }
    return answers;
  };
  return {
    app,
    stripe,
    webhookUrl,
    deliverAll,
    async subscribe(token, order) {
      const res = await request(app.url, '/billing/checkout', { method: 'POST', token, body: order });
      if (res.status !== 200) throw new Error(`checkout answered ${res.status}: ${JSON.stringify(res.body)}`);
      const sessionId = String(res.body.url).split('/').pop()!;
      const completed = stripe.completeCheckout(sessionId, { paymentMethod: { brand: 'visa', last4: '4242' } });
      await deliverAll();
      return completed.subscription!;
    },
    async close() {
      await app.close();
      await stripe.close();
    },
  };
}
