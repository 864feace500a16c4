import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import t, { type Test } from 'tap';
import { movableClock } from '../../helpers/clock.js';
import {
  compareWithFixtures,
  loadStripeFixtures,
  locateStripeFixtures,
} from '../../helpers/stripe-double/fixture-shapes.js';
import { decodeForm } from '../../helpers/stripe-double/form-encoding.js';
import { startStripeDouble, type StripeDouble, type StripeDoubleOptions } from '../../helpers/stripe-double/index.js';

/**
 * The Stripe double the billing adapter is tested against: every endpoint and control driven
 * through the real `stripe` SDK (so the SDK parses every answer), every answer and event checked
 * against Stripe's own fixtures, and the behaviour the adapter relies on (events, errors,
 * idempotency, outages) asserted.
 */

const PRICES = {
  pro: { id: 'price_pro', unit_amount: 2000, recurring: { interval: 'month' as const }, product: 'Pro' },
  team: { id: 'price_team', unit_amount: 8000, recurring: { interval: 'month' as const }, product: 'Team' },
  seat: { id: 'price_seat', unit_amount: 400, recurring: { interval: 'month' as const }, product: 'Inbox seat' },
  overage: {
    id: 'price_overage',
    unit_amount: 90,
    recurring: { interval: 'month' as const, usage_type: 'metered' as const, meter: 'mtr_test_emails' },
    product: 'Email overage',
  },
  setup: { id: 'price_setup', unit_amount: 5000, recurring: null, product: 'Setup fee' },
};

async function setup(t: Test, options: StripeDoubleOptions = {}): Promise<{ double: StripeDouble; stripe: Stripe }> {
  const double = await startStripeDouble(options);
  t.teardown(() => double.close());
  for (const price of Object.values(PRICES)) double.addPrice(price);
  return { double, stripe: double.client() };
}

/** A customer with an active Pro subscription, its events taken. */
async function subscribed(double: StripeDouble, stripe: Stripe, lines = [{ price: 'price_pro', quantity: 1 }]) {
  const customer = await stripe.customers.create({ email: 'owner@example.com', metadata: { team_id: 'team_1' } });
  const session = await stripe.checkout.sessions.create({
    mode: 'subscription',
    customer: customer.id,
    line_items: lines,
    success_url: 'https://app.example.com/billing?checkout=success',
    subscription_data: { metadata: { team_id: 'team_1' } },
  });
  const done = double.completeCheckout(session.id, { paymentMethod: { brand: 'mastercard', last4: '4444' } });
  double.takeEvents();
  return { customer, session, subscription: done.subscription!, invoice: done.invoice! };
}

async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

t.test('every endpoint and control through the SDK; every answer and event in the fixtures’ shapes', async (t) => {
  const { double, stripe } = await setup(t);
  const events: Stripe.Event[] = [];
  const price = await stripe.prices.retrieve('price_overage');
  t.equal(price.recurring?.usage_type, 'metered');
  t.ok(
    price.unit_amount_decimal && Stripe.Decimal.from('90').eq(price.unit_amount_decimal),
    'the SDK parsed the decimal',
  );
  const { customer, subscription } = await subscribed(double, stripe, [
    { price: 'price_pro', quantity: 1 },
    { price: 'price_overage' } as { price: string; quantity: number },
  ]);
  const expanded = await stripe.customers.retrieve(customer.id, {
    expand: ['invoice_settings.default_payment_method'],
  });
  t.equal(
    ((expanded as Stripe.Customer).invoice_settings.default_payment_method as Stripe.PaymentMethod).card?.last4,
    '4444',
  );
  const payment = await stripe.checkout.sessions.create({
    mode: 'payment',
    customer: customer.id,
    line_items: [{ price: 'price_setup', quantity: 1 }],
  });
  double.completeCheckout(payment.id);
  t.equal((await stripe.checkout.sessions.retrieve(payment.id)).status, 'complete');
  const portal = await stripe.billingPortal.sessions.create({
    customer: customer.id,
    return_url: 'https://app.example.com/billing',
  });
  t.match(portal.url, /^http:\/\/127\.0\.0\.1:\d+\/portal\/bps_/);
  await stripe.subscriptions.retrieve(subscription.id, { expand: ['latest_invoice', 'default_payment_method'] });
  await stripe.subscriptions.list({ customer: customer.id, expand: ['data.latest_invoice'] });
  const pro = subscription.items.data.find((i) => i.price.id === 'price_pro')!;
  await stripe.subscriptions.update(subscription.id, {
    items: [{ id: pro.id, price: 'price_team' }],
    proration_behavior: 'create_prorations',
  });
  await stripe.subscriptionItems.create({ subscription: subscription.id, price: 'price_seat', quantity: 2 });
  await stripe.billing.meterEvents.create({
    event_name: 'emails',
    payload: { stripe_customer_id: customer.id, value: '1000' },
    identifier: 'team_1:2026-05',
  });
  events.push(...double.takeEvents());
  const failed = double.failPayment(subscription.id);
  double.payInvoice(failed.id);
  await stripe.invoices.list({ customer: customer.id, limit: 1 });
  double.cancelSubscription(subscription.id);
  await stripe.subscriptions.list({ customer: customer.id, status: 'all' });
  events.push(...double.takeEvents());

  const answers = double.requestsTo('/v1/').map((r) => r.response);
  t.ok(
    double.requestsTo('/v1/').every((r) => r.status === 200),
    'every call succeeded',
  );
  t.same(
    new Set(
      double.requestsTo('/v1/').map((r) => `${r.method} ${r.path.replace(/\/(cus|cs_test|sub|price)_\w+$/, '/:id')}`),
    ),
    new Set([
      'GET /v1/prices/:id',
      'POST /v1/customers',
      'GET /v1/customers/:id',
      'POST /v1/checkout/sessions',
      'GET /v1/checkout/sessions/:id',
      'POST /v1/billing_portal/sessions',
      'GET /v1/subscriptions/:id',
      'GET /v1/subscriptions',
      'POST /v1/subscriptions/:id',
      'POST /v1/subscription_items',
      'POST /v1/billing/meter_events',
      'GET /v1/invoices',
    ]),
    'every endpoint was driven',
  );
  t.same([...new Set(events.map((e) => e.type))].sort(), [
    'checkout.session.completed',
    'customer.subscription.deleted',
    'customer.subscription.updated',
    'invoice.paid',
    'invoice.payment_failed',
  ]);

  const fixtures = locateStripeFixtures();
  t.test(
    'field names match Stripe’s fixtures',
    { skip: !fixtures.found && `Stripe's fixtures are not at ${fixtures.path} (set MAILROOM_STRIPE_FIXTURES)` },
    async (t) => {
      const resources = loadStripeFixtures(fixtures.path);
      const completion = double.completeCheckout(
        (
          await stripe.checkout.sessions.create({
            mode: 'subscription',
            customer: customer.id,
            line_items: [{ price: 'price_seat', quantity: 1 }],
          })
        ).id,
      );
      t.ok(completion.subscription);
      const report = compareWithFixtures([answers, events, double.takeEvents(), double.store.meterEvents], resources);
      t.same(report.problems, [], 'no missing or extra fields');
      for (const type of [
        'customer',
        'price',
        'checkout.session',
        'billing_portal.session',
        'subscription',
        'subscription_item',
        'plan',
        'invoice',
        'line_item',
        'payment_method',
        'billing.meter_event',
        'event',
        'list',
      ]) {
        t.ok(report.checked.get(type), `${type} objects were checked`);
      }
    },
  );
});

t.test('checkout: Stripe’s validation, default expiry, the hosted URL stops working at expires_at', async (t) => {
  const clock = movableClock();
  const { double, stripe } = await setup(t, { clock });
  const customer = await stripe.customers.create({ email: 'a@example.com' });
  const base = {
    customer: customer.id,
    success_url: 'https://app.example.com/ok',
    cancel_url: 'https://app.example.com/no',
  };
  const session = await stripe.checkout.sessions.create({
    ...base,
    mode: 'subscription',
    line_items: [{ price: 'price_seat', quantity: 3 }],
    client_reference_id: 'team_1',
    metadata: { team_id: 'team_1' },
  });
  t.equal(session.expires_at - session.created, 24 * 3600, 'expires after 24 hours by default');
  t.match(session, {
    status: 'open',
    payment_status: 'unpaid',
    amount_total: 1200,
    currency: 'usd',
    client_reference_id: 'team_1',
    metadata: { team_id: 'team_1' },
  });
  t.same(
    double.requestsTo('/v1/checkout/sessions', 'POST')[0]?.body.line_items,
    [{ price: 'price_seat', quantity: '3' }],
    'the form body, decoded',
  );
  t.equal((await fetch(session.url!)).status, 200, 'the hosted page answers');
  const soon = await stripe.checkout.sessions.create({
    ...base,
    mode: 'subscription',
    line_items: [{ price: 'price_pro', quantity: 1 }],
    expires_at: session.created + 3600,
  });
  t.equal(soon.expires_at, session.created + 3600);
  const refusals = [
    [
      { mode: 'subscription', line_items: [{ price: 'price_pro', quantity: 1 }], expires_at: session.created + 60 },
      'expires_at',
    ],
    [{ mode: 'payment', line_items: [{ price: 'price_pro', quantity: 1 }] }, 'line_items'],
    [{ mode: 'subscription', line_items: [{ price: 'price_setup', quantity: 1 }] }, 'line_items'],
    [{ mode: 'subscription', line_items: [{ price: 'price_pro' }] }, 'line_items[0][quantity]'],
    [{ mode: 'subscription', line_items: [{ price: 'price_overage', quantity: 1 }] }, 'line_items[0][quantity]'],
    [{ mode: 'subscription', line_items: [{ price: 'price_nope', quantity: 1 }] }, 'line_items[0][price]'],
    [
      { mode: 'subscription', line_items: [{ price: 'price_pro', quantity: 1 }], customer_email: 'x@example.com' },
      'customer',
    ],
    [
      { mode: 'subscription', line_items: [{ price: 'price_pro', quantity: 1 }], allow_promotion_codes: true },
      'allow_promotion_codes',
    ],
  ] as const;
  for (const [params, param] of refusals) {
    const error = await rejection(
      stripe.checkout.sessions.create({ ...base, ...params } as unknown as Stripe.Checkout.SessionCreateParams),
    );
    t.match(error, { type: 'StripeInvalidRequestError', statusCode: 400, param }, `refused: ${param}`);
  }
  clock.advanceTo(Date.now() + 24 * 3600 * 1000 + 1000);
  t.equal((await stripe.checkout.sessions.retrieve(session.id)).status, 'expired');
  t.equal((await fetch(session.url!)).status, 410, 'the URL stops working at expires_at');
  t.throws(() => double.completeCheckout(session.id), /expired, not open/);
});

t.test('completing checkout: events in order, subscription, paid invoice, default card', async (t) => {
  const { double, stripe } = await setup(t);
  const customer = await stripe.customers.create({ email: 'owner@example.com', name: 'Owner' });
  const session = await stripe.checkout.sessions.create({
    mode: 'subscription',
    customer: customer.id,
    line_items: [{ price: 'price_pro', quantity: 1 }],
    subscription_data: { metadata: { team_id: 'team_9' } },
  });
  const done = double.completeCheckout(session.id, { paymentMethod: { brand: 'amex', last4: '0005' } });
  const events = double.takeEvents();
  t.same(
    events.map((e) => e.type),
    ['checkout.session.completed', 'customer.subscription.created', 'invoice.paid'],
  );
  t.same(double.takeEvents(), [], 'taking empties the queue');
  for (const event of events)
    t.match(event, {
      object: 'event',
      livemode: false,
      api_version: Stripe.API_VERSION,
      request: { id: null, idempotency_key: null },
    });
  const [completed, created, paid] = events.map((e) => e.data.object) as [
    Stripe.Checkout.Session,
    Stripe.Subscription,
    Stripe.Invoice,
  ];
  t.match(completed, {
    id: session.id,
    status: 'complete',
    payment_status: 'paid',
    subscription: done.subscription!.id,
  });
  t.match(created, { status: 'active', customer: customer.id, metadata: { team_id: 'team_9' } });
  t.notOk('current_period_end' in created, 'periods are on the items (SDK API version)');
  const item = created.items.data[0]!;
  t.ok(item.current_period_end - item.current_period_start >= 28 * 24 * 3600, 'a one-month period');
  t.match(paid, {
    status: 'paid',
    amount_paid: 2000,
    amount_remaining: 0,
    billing_reason: 'subscription_create',
    parent: { subscription_details: { subscription: created.id } },
  });
  t.match(paid.lines.data[0], { amount: 2000, description: '1 × Pro (at $20.00 / month)' });
  const pm = (await stripe.customers.retrieve(customer.id, {
    expand: ['invoice_settings.default_payment_method'],
  })) as Stripe.Customer;
  t.match(pm.invoice_settings.default_payment_method, {
    object: 'payment_method',
    type: 'card',
    card: { brand: 'amex', last4: '0005' },
  });
  t.throws(() => double.completeCheckout(session.id), /complete, not open/);

  const payment = await stripe.checkout.sessions.create({
    mode: 'payment',
    customer: customer.id,
    line_items: [{ price: 'price_setup', quantity: 2 }],
  });
  double.completeCheckout(payment.id);
  t.same(
    double.takeEvents().map((e) => e.type),
    ['checkout.session.completed'],
    'payment mode: the session alone',
  );
});

t.test('failed and recovered payments, cancellation', async (t) => {
  const { double, stripe } = await setup(t);
  const { customer, subscription } = await subscribed(double, stripe);
  const failed = double.failPayment(subscription.id);
  t.match(failed, {
    status: 'open',
    attempted: true,
    attempt_count: 1,
    amount_paid: 0,
    billing_reason: 'subscription_cycle',
  });
  let events = double.takeEvents();
  t.same(
    events.map((e) => e.type),
    ['invoice.payment_failed', 'customer.subscription.updated'],
  );
  t.match(events[1]!.data, {
    object: { status: 'past_due', latest_invoice: failed.id },
    previous_attributes: { status: 'active' },
  });
  t.equal(((await stripe.customers.retrieve(customer.id)) as Stripe.Customer).delinquent, true);
  t.match(double.failPayment(subscription.id), { id: failed.id, attempt_count: 2 });
  t.same(
    double.takeEvents().map((e) => e.type),
    ['invoice.payment_failed'],
    'no update when nothing changed on the subscription',
  );
  double.payInvoice(failed.id);
  events = double.takeEvents();
  t.same(
    events.map((e) => e.type),
    ['invoice.paid', 'customer.subscription.updated'],
  );
  t.match(events[1]!.data, { object: { status: 'active' }, previous_attributes: { status: 'past_due' } });
  const invoices = await stripe.invoices.list({ customer: customer.id, limit: 1 });
  t.match(invoices, { object: 'list', has_more: true, url: '/v1/invoices' });
  t.equal(invoices.data[0]!.id, failed.id, 'newest first');
  const next = await stripe.invoices.list({ customer: customer.id, limit: 1, starting_after: failed.id });
  t.match(next, { has_more: false, data: [{ billing_reason: 'subscription_create' }] });
  double.cancelSubscription(subscription.id);
  events = double.takeEvents();
  t.same(
    events.map((e) => e.type),
    ['customer.subscription.deleted'],
  );
  t.match(events[0]!.data.object, { status: 'canceled', cancellation_details: { reason: 'cancellation_requested' } });
  t.equal(
    (await stripe.subscriptions.list({ customer: customer.id })).data.length,
    0,
    'canceled ones are not listed by default',
  );
  t.equal((await stripe.subscriptions.list({ customer: customer.id, status: 'all' })).data.length, 1);
  t.match(await rejection(stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true })), {
    statusCode: 400,
  });
});

t.test('subscription changes by the adapter: items kept, added, removed; events name the request', async (t) => {
  const { double, stripe } = await setup(t);
  const { subscription } = await subscribed(double, stripe);
  const item = subscription.items.data[0]!;
  const moved = await stripe.subscriptions.update(
    subscription.id,
    {
      items: [{ id: item.id, price: 'price_team' }],
      proration_behavior: 'create_prorations',
      metadata: { plan: 'team' },
    },
    { idempotencyKey: 'plan-change-1' },
  );
  t.match(
    moved.items.data,
    [{ id: item.id, price: { id: 'price_team' }, plan: { id: 'price_team' }, quantity: 1 }],
    'a price change keeps the item id',
  );
  t.equal(
    double.requestsTo(`/v1/subscriptions/${subscription.id}`, 'POST')[0]?.body.proration_behavior,
    'create_prorations',
  );
  let [event, ...rest] = double.takeEvents();
  t.same(rest, []);
  t.match(event, {
    type: 'customer.subscription.updated',
    request: { id: /^req_/, idempotency_key: 'plan-change-1' },
    data: {
      object: { metadata: { team_id: 'team_1', plan: 'team' } },
      previous_attributes: { items: { data: [{ price: { id: 'price_pro' } }] }, metadata: { team_id: 'team_1' } },
    },
  });
  t.equal(event!.request?.id, double.requestsTo(`/v1/subscriptions/${subscription.id}`, 'POST')[0]?.requestId);

  const seat = await stripe.subscriptionItems.create({
    subscription: subscription.id,
    price: 'price_seat',
    quantity: 3,
    proration_behavior: 'create_prorations',
  });
  t.match(seat, {
    object: 'subscription_item',
    subscription: subscription.id,
    quantity: 3,
    current_period_end: item.current_period_end,
  });
  t.same(
    (await stripe.subscriptions.retrieve(subscription.id)).items.data.map((i) => i.id),
    [item.id, seat.id],
    'it appears in the subscription',
  );
  t.same(
    double.takeEvents().map((e) => e.type),
    ['customer.subscription.updated'],
  );
  t.match(
    await rejection(
      stripe.subscriptionItems.create({ subscription: subscription.id, price: 'price_seat', quantity: 1 }),
    ),
    { statusCode: 400, param: 'price' },
    'the same price twice is refused',
  );
  t.match(await rejection(stripe.subscriptionItems.create({ subscription: 'sub_nope', price: 'price_seat' })), {
    statusCode: 400,
    code: 'resource_missing',
    param: 'subscription',
  });

  const fewer = await stripe.subscriptions.update(subscription.id, {
    items: [{ id: seat.id, deleted: true }, { price: 'price_overage' }],
  });
  t.same(
    fewer.items.data.map((i) => i.price.id),
    ['price_team', 'price_overage'],
  );
  t.notOk('quantity' in fewer.items.data[1]!, 'a metered item has no quantity');
  double.takeEvents();
  const unchanged = await stripe.subscriptions.update(subscription.id, { metadata: { plan: 'team' } });
  t.equal(unchanged.id, subscription.id);
  t.same(double.takeEvents(), [], 'no event when nothing changed');
  const ending = await stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true });
  t.match(ending, { cancel_at_period_end: true, cancel_at: item.current_period_end, status: 'active' });
  [event] = double.takeEvents();
  t.match(event?.data.previous_attributes, { cancel_at_period_end: false, cancel_at: null });
  t.match(await rejection(stripe.subscriptions.update(subscription.id, { items: [{ id: 'si_nope', quantity: 2 }] })), {
    statusCode: 400,
    param: 'items[0][id]',
  });
  t.match(await rejection(stripe.subscriptions.retrieve('sub_nope')), {
    type: 'StripeInvalidRequestError',
    statusCode: 404,
    code: 'resource_missing',
    message: "No such subscription: 'sub_nope'",
  });
});

t.test('meter events: recorded, a repeated identifier refused as Stripe refuses it', async (t) => {
  const { double, stripe } = await setup(t);
  const params = {
    event_name: 'emails',
    payload: { stripe_customer_id: 'cus_1', value: '250' },
    identifier: 'team_1:2026-05:1',
  };
  const accepted = await stripe.billing.meterEvents.create(params);
  t.match(accepted, { object: 'billing.meter_event', identifier: 'team_1:2026-05:1', payload: { value: '250' } });
  t.same(
    double.meterEvents.map((e) => e.identifier),
    ['team_1:2026-05:1'],
  );
  const duplicate = await rejection(stripe.billing.meterEvents.create(params));
  t.match(duplicate, {
    type: 'StripeInvalidRequestError',
    statusCode: 400,
    message: 'An event already exists with identifier team_1:2026-05:1.',
  });
  t.equal(duplicate.code, undefined, 'Stripe sends no code for it');
  t.equal(double.meterEvents.length, 1, 'recorded once');
  const replay = await stripe.billing.meterEvents.create(
    { ...params, identifier: 'team_1:2026-05:2' },
    { idempotencyKey: 'k1' },
  );
  const again = await stripe.billing.meterEvents.create(
    { ...params, identifier: 'team_1:2026-05:2' },
    { idempotencyKey: 'k1' },
  );
  t.same(again, replay, 'a retry under the same Idempotency-Key replays the answer');
  t.equal(double.meterEvents.length, 2);
  t.match(
    await rejection(
      stripe.billing.meterEvents.create({
        ...params,
        identifier: 'old',
        timestamp: Math.floor(Date.now() / 1000) - 40 * 24 * 3600,
      }),
    ),
    { statusCode: 400, param: 'timestamp' },
  );
});

t.test('transport: the key, idempotency, unknown routes, injected errors, Stripe unreachable', async (t) => {
  const { double, stripe } = await setup(t);
  for (const authorization of [undefined, 'Bearer sk_test_wrong_key_123456']) {
    const response = await fetch(`${double.url}/v1/customers`, {
      method: 'POST',
      headers: authorization ? { authorization } : {},
    });
    t.equal(response.status, 401);
    t.match(await response.json(), { error: { type: 'invalid_request_error', message: String } });
  }
  t.match(await rejection(new Stripe('sk_test_wrong', double.stripeOptions).customers.create({})), {
    type: 'StripeAuthenticationError',
    statusCode: 401,
  });
  t.equal(double.store.customers.size, 0, 'nothing made without the key');

  const first = await stripe.customers.create({ email: 'a@example.com' }, { idempotencyKey: 'create-1' });
  const second = await stripe.customers.create({ email: 'a@example.com' }, { idempotencyKey: 'create-1' });
  t.equal(second.id, first.id, 'same key, same body: the same answer');
  t.same(
    double
      .requestsTo('/v1/customers', 'POST')
      .slice(-2)
      .map((r) => r.replayed),
    [false, true],
  );
  t.equal(double.store.customers.size, 1);
  t.match(await rejection(stripe.customers.create({ email: 'b@example.com' }, { idempotencyKey: 'create-1' })), {
    type: 'StripeIdempotencyError',
    statusCode: 400,
  });
  t.match(await rejection(stripe.customers.create({ email: 'not-an-email' })), {
    statusCode: 400,
    code: 'email_invalid',
  });
  t.match(
    await rejection(stripe.customers.create({ tax_exempt: 'none' })),
    { statusCode: 400, code: 'parameter_unknown', param: 'tax_exempt' },
    'unmodelled parameters are refused, not ignored',
  );

  const unknown = await fetch(`${double.url}/v1/charges`, { headers: { authorization: `Bearer ${double.secretKey}` } });
  t.equal(unknown.status, 404);
  t.match(await unknown.json(), {
    error: { type: 'invalid_request_error', message: /^Unrecognized request URL \(GET: \/v1\/charges\)/ },
  });

  double.failNext('POST', '/v1/checkout/sessions', 402, {
    type: 'card_error',
    code: 'card_declined',
    decline_code: 'generic_decline',
    message: 'Your card was declined.',
  });
  const params = {
    mode: 'subscription' as const,
    customer: first.id,
    line_items: [{ price: 'price_pro', quantity: 1 }],
  };
  t.match(await rejection(stripe.checkout.sessions.create(params)), {
    type: 'StripeCardError',
    statusCode: 402,
    code: 'card_declined',
    decline_code: 'generic_decline',
  });
  t.ok(await stripe.checkout.sessions.create(params), 'the failure happens once');
  double.failNext('GET', `/v1/customers/${first.id}`, 500, {
    type: 'api_error',
    message: 'Something went wrong on Stripe’s end.',
  });
  t.match(await rejection(stripe.customers.retrieve(first.id)), { type: 'StripeAPIError', statusCode: 500 });

  const before = double.requests.length;
  double.unreachable(true);
  t.match(await rejection(stripe.customers.retrieve(first.id)), { type: 'StripeConnectionError' });
  t.equal(double.requests.length, before, 'nothing reached the double');
  t.ok(double.refusedConnections > 0, 'the SDK did try');
  double.unreachable(false);
  t.equal((await stripe.customers.retrieve(first.id)).id, first.id, 'reachable again');
  const recorded = double.requestsTo('/v1/customers/', 'GET').at(-1)!;
  t.match(recorded, {
    method: 'GET',
    status: 200,
    headers: { authorization: `Bearer ${double.secretKey}` },
    response: { id: first.id },
  });
});

t.test('webhooks: signed with the SDK’s test header, verified by constructEvent, delivered over HTTP', async (t) => {
  const { double, stripe } = await setup(t);
  await subscribed(double, stripe);
  const { subscription } = await subscribed(double, stripe);
  double.cancelSubscription(subscription.id);
  const [event] = double.takeEvents();
  const delivery = double.signedDelivery(event!);
  t.equal(delivery.headers['content-type'], 'application/json');
  t.match(delivery.headers['stripe-signature'], /^t=\d+,v1=[0-9a-f]{64}$/);
  t.same(
    stripe.webhooks.constructEvent(delivery.body, delivery.headers['stripe-signature'], double.webhookSecret),
    JSON.parse(delivery.body),
  );
  t.throws(() =>
    stripe.webhooks.constructEvent(
      delivery.body,
      double.signedDelivery(event!, { secret: 'whsec_other' }).headers['stripe-signature'],
      double.webhookSecret,
    ),
  );
  const old = double.signedDelivery('{"id":"evt_x"}', { timestamp: Math.floor(Date.now() / 1000) - 3600 });
  t.equal(old.body, '{"id":"evt_x"}', 'a payload string is signed as given');
  t.throws(
    () => stripe.webhooks.constructEvent(old.body, old.headers['stripe-signature'], double.webhookSecret),
    /timestamp/i,
    'outside the tolerance',
  );

  const received: Array<{ body: string; signature: string | undefined }> = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ body, signature: req.headers['stripe-signature'] as string | undefined });
      res.writeHead(200).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const response = await double.deliver(
    `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/stripe`,
    event!,
  );
  t.equal(response.status, 200);
  t.match(stripe.webhooks.constructEvent(received[0]!.body, received[0]!.signature!, double.webhookSecret), {
    id: event!.id,
    type: 'customer.subscription.deleted',
  });
});

t.test('the form decoder reads Stripe’s bracket notation', async (t) => {
  t.same(
    decodeForm(
      'line_items[0][price]=p1&line_items[0][quantity]=2&line_items[1][price]=p2&metadata[team_id]=t%201&expand[]=a&expand[]=b.c&x=',
    ),
    {
      line_items: [{ price: 'p1', quantity: '2' }, { price: 'p2' }],
      metadata: { team_id: 't 1' },
      expand: ['a', 'b.c'],
      x: '',
    },
  );
  t.same(decodeForm('a[10]=y&a[2]=x'), { a: ['x', 'y'] }, 'indexes in order');
  t.same(decodeForm('__proto__[polluted]=1&a[constructor]=2&ok=3'), { ok: '3' });
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});
