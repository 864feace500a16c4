import t from 'tap';
import type Stripe from 'stripe';
import { billingSchema } from '../../api/routes/billing.schemas.js';
import { startBillingApp } from '../helpers/billing-app.js';
import { movableClock } from '../helpers/clock.js';
import { errorShape, request } from '../helpers/http.js';

/**
 * Stripe's webhooks at /billing-webhooks/stripe: each event of the spec applied once, from the
 * subscription re-read at Stripe (so a late event cannot roll the state back), in the
 * transaction that records the event and moves the team's plan; a bad signature changes nothing;
 * Stripe unreachable answers 503 so Stripe delivers again.
 */
const clock = movableClock();
const billing = await startBillingApp({ clock });
t.teardown(() => billing.close());
const { app, stripe, webhookUrl } = billing;
const knex = app.runtime.db.knex;

const get = (token: string) => request(app.url, '/billing', { token });
const teamPlan = async (token: string) => (await request(app.url, '/team', { token })).body.plan.code as string;
const processed = async (id: string) => Boolean(await knex('billing_webhook_events').where({ id }).first());
const deliver = async (event: Stripe.Event | string, options = {}) => {
  const res = await stripe.deliver(webhookUrl, event, options);
  return { status: res.status, body: await res.json(), headers: res.headers };
};
const retrievals = () => stripe.requestsTo('/v1/subscriptions/', 'GET').length;
/** POST /billing/checkout for the plan, then the customer pays on Stripe's page (its events queued, not delivered). */
const paidCheckout = async (
  token: string,
  planCode: string,
  options?: Parameters<typeof stripe.completeCheckout>[1],
) => {
  const res = await request(app.url, '/billing/checkout', { method: 'POST', token, body: { plan_code: planCode } });
  return stripe.completeCheckout(String(res.body.url).split('/').pop()!, options);
};

t.test('checkout completed: the subscription drives GET /billing and the plan', async (t) => {
  const team = await app.createTeam('Subscriber', 'free');
  const completed = await paidCheckout(team.token, 'pro', { paymentMethod: { brand: 'mastercard', last4: '4444' } });
  t.equal(await teamPlan(team.token), 'free', 'nothing changes before Stripe says so');
  const events = stripe.takeEvents();
  t.same(
    events.map((e) => e.type),
    ['checkout.session.completed', 'customer.subscription.created', 'invoice.paid'],
  );
  for (const event of events) {
    const answer = await deliver(event);
    t.equal(answer.status, 200, `${event.type} accepted`);
    t.same(answer.body, { received: true, applied: true });
    t.ok(await processed(event.id), `${event.type} recorded as applied`);
  }
  t.equal(await teamPlan(team.token), 'pro', "the team's plan (and its quotas) follow the subscription");
  const body = (await get(team.token)).body;
  const item = completed.subscription!.items.data[0]!;
  t.match(body, {
    plan: { code: 'pro', name: 'Pro', monthly_price_cents: 2000, included_emails: 50000, overage_per_1000_cents: 0 },
    effective_plan_code: 'pro',
    subscription: {
      status: 'active',
      current_period_start: new Date(item.current_period_start * 1000).toISOString(),
      current_period_end: new Date(item.current_period_end * 1000).toISOString(),
      invoicing: 'charge_automatically',
      latest_invoice_status: 'paid',
      trial_ends_at: null,
    },
    payment_method: { present: true, brand: 'mastercard', last4: '4444' },
    addons: [],
    pending_change: null,
    payment_state: null,
    checkout_available: false,
    paid_plan: true,
    storage_addon_purchase: 'add_item',
    inbox_seats: { code: 'inbox_seat', quantity: 0 },
  });
  t.ok(billingSchema.safeParse(body).success, 'matches the documented schema (strict)');
  t.match((await request(app.url, '/team', { token: team.token })).body.plan.limits, {
    included_emails: 50000,
    daily_cap: null,
  });

  t.test('a replayed event is answered 200 and applied no second time', async (t) => {
    const before = retrievals();
    for (const event of events) t.same((await deliver(event)).body, { received: true, applied: false });
    t.equal(retrievals(), before, 'Stripe is not even asked again');
  });
});

t.test('a failed payment moves payment_state; the paid invoice clears it; a late event changes nothing', async (t) => {
  const team = await app.createTeam('Late payer', 'free');
  const subscription = await billing.subscribe(team.token, { plan_code: 'pro' });
  const invoice = stripe.failPayment(subscription.id);
  const failed = stripe.takeEvents();
  t.same(
    failed.map((e) => e.type),
    ['invoice.payment_failed', 'customer.subscription.updated'],
  );
  // Delivered out of order: the subscription update first, then the invoice event.
  for (const event of [failed[1]!, failed[0]!]) t.equal((await deliver(event)).status, 200);
  const body = (await get(team.token)).body;
  t.match(body, {
    subscription: { status: 'past_due', latest_invoice_status: 'open' },
    payment_state: {
      status: 'failed',
      invoice_id: invoice.id,
      amount_due_cents: invoice.amount_remaining,
      currency: 'usd',
      attempt_count: 1,
    },
    storage_addon_purchase: 'held',
  });
  t.ok(billingSchema.safeParse(body).success, 'matches the documented schema (strict)');
  t.equal(await teamPlan(team.token), 'pro', 'past_due keeps the plan while Stripe retries');

  stripe.payInvoice(invoice.id);
  const paid = stripe.takeEvents();
  t.same(
    paid.map((e) => e.type),
    ['invoice.paid', 'customer.subscription.updated'],
  );
  for (const event of paid) t.equal((await deliver(event)).status, 200);
  t.match((await get(team.token)).body, {
    subscription: { status: 'active', latest_invoice_status: 'paid' },
    payment_state: null,
    storage_addon_purchase: 'add_item',
  });

  // The old `invoice.payment_failed` and past_due update, never delivered before (Stripe's
  // first attempt failed), arrive now: the state re-read from Stripe is still the paid one.
  const late = [failed[0]!, failed[1]!].map((event) => ({ ...event, id: `${event.id}_late` }));
  for (const event of late) t.same((await deliver(event)).body, { received: true, applied: true });
  t.match((await get(team.token)).body, { subscription: { status: 'active' }, payment_state: null });
});

t.test('deleted: back to free; the team may check out again', async (t) => {
  const team = await app.createTeam('Leaver', 'free');
  const subscription = await billing.subscribe(team.token, { plan_code: 'scale' });
  t.equal(await teamPlan(team.token), 'scale');
  stripe.cancelSubscription(subscription.id);
  const events = stripe.takeEvents();
  t.same(
    events.map((e) => e.type),
    ['customer.subscription.deleted'],
  );
  t.equal((await deliver(events[0]!)).status, 200);
  t.equal(await teamPlan(team.token), 'free');
  t.match((await get(team.token)).body, {
    plan: { code: 'free', monthly_price_cents: 0 },
    subscription: { status: 'canceled' },
    checkout_available: true,
    paid_plan: false,
    storage_addon_purchase: 'checkout',
    addons: [],
  });
  const again = await request(app.url, '/billing/checkout', {
    method: 'POST',
    token: team.token,
    body: { plan_code: 'pro' },
  });
  t.equal(again.status, 200, 'checkout is open again');

  t.test('an update of the ended subscription arriving after a new one started changes nothing', async (t) => {
    const next = stripe.completeCheckout(String(again.body.url).split('/').pop()!);
    const fresh = stripe.takeEvents();
    for (const event of fresh) t.equal((await deliver(event)).status, 200);
    t.equal(await teamPlan(team.token), 'pro');
    t.equal((await deliver({ ...events[0]!, id: `${events[0]!.id}_again` })).status, 200);
    t.equal(await teamPlan(team.token), 'pro', 'still the new subscription');
    t.match((await get(team.token)).body, { subscription: { status: 'active' }, checkout_available: false });
    t.ok(next.subscription);
  });
});

t.test('cancelled at period end: a pending change', async (t) => {
  const team = await app.createTeam('Cancelling', 'free');
  const subscription = await billing.subscribe(team.token, { plan_code: 'pro' });
  const updated = await stripe.client().subscriptions.update(subscription.id, { cancel_at_period_end: true });
  for (const event of stripe.takeEvents()) t.equal((await deliver(event)).status, 200);
  t.match((await get(team.token)).body, {
    subscription: { status: 'active' },
    pending_change: {
      type: 'cancellation',
      effective_at: new Date(updated.cancel_at! * 1000).toISOString(),
      plan_code: 'free',
    },
  });
});

t.test('a storage-only subscription leaves the plan alone', async (t) => {
  const team = await app.createTeam('Operator plan', 'unlimited');
  const subscription = await billing.subscribe(team.token, { addon_code: 'inbox_storage_100gb' });
  t.equal(await teamPlan(team.token), 'unlimited', 'the plan the operator set stays');
  t.match((await get(team.token)).body, {
    addons: [{ code: 'inbox_storage_100gb', quantity: 1 }],
    checkout_available: false,
    paid_plan: true,
    subscription: { status: 'active' },
  });
  stripe.cancelSubscription(subscription.id);
  for (const event of stripe.takeEvents()) t.equal((await deliver(event)).status, 200);
  t.equal(await teamPlan(team.token), 'unlimited', 'and stays when the subscription ends');

  const free = await app.createTeam('Free storage', 'free');
  await billing.subscribe(free.token, { addon_code: 'inbox_storage_100gb' });
  t.match((await get(free.token)).body, { plan: { code: 'free' }, paid_plan: false, checkout_available: false });
});

t.test('a bad signature: 400, nothing applied', async (t) => {
  const team = await app.createTeam('Forged', 'free');
  await paidCheckout(team.token, 'pro');
  const events = stripe.takeEvents();
  const event = events[1]!; // customer.subscription.created
  const before = retrievals();
  const cases: Array<[string, () => Promise<{ status: number; body: any }>]> = [
    ['another secret', () => deliver(event, { secret: 'whsec_notTheRightOne' })],
    ['too old', () => deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 3600 })],
    [
      'a body other than the one signed',
      async () => {
        const signed = stripe.signedDelivery(event);
        const tampered = signed.body.replace('"active"', '"canceled"');
        const r = await fetch(webhookUrl, { method: 'POST', headers: signed.headers, body: tampered });
        return { status: r.status, body: await r.json() };
      },
    ],
    [
      'no signature',
      async () => {
        const r = await fetch(webhookUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(event),
        });
        return { status: r.status, body: await r.json() };
      },
    ],
  ];
  for (const [name, send] of cases) {
    const answer = await send();
    t.equal(answer.status, 400, `${name}: 400`);
    t.match(
      answer.body,
      { statusCode: 400, name: 'validation_error', message: /signature/i },
      `${name}: the error body`,
    );
  }
  t.notOk(await processed(event.id), 'not recorded');
  t.equal(retrievals(), before, 'Stripe not asked');
  t.equal(await teamPlan(team.token), 'free', 'the plan did not change');
  t.match((await get(team.token)).body, { subscription: { status: 'none' }, checkout_available: true });
  // The genuine delivery still applies afterwards.
  for (const genuine of events) t.equal((await deliver(genuine)).status, 200);
  t.equal(await teamPlan(team.token), 'pro');
});

t.test('Stripe unreachable while re-reading: 503, nothing half-applied; the redelivery applies', async (t) => {
  const team = await app.createTeam('Unlucky', 'free');
  await paidCheckout(team.token, 'scale');
  const events = stripe.takeEvents();
  stripe.unreachable(true);
  const answer = await deliver(events[0]!);
  stripe.unreachable(false);
  t.equal(answer.status, 503, 'Stripe will deliver again');
  t.match(answer.body, { statusCode: 503, name: 'service_unavailable' });
  t.notOk(await processed(events[0]!.id), 'the event is not recorded');
  t.equal(await teamPlan(team.token), 'free', 'no plan changed');
  t.match((await get(team.token)).body, { subscription: { status: 'none' } });
  for (const event of events) t.equal((await deliver(event)).status, 200);
  t.equal(await teamPlan(team.token), 'scale');
});

t.test('events the appliance does not act on: 200, ignored', async (t) => {
  const event = {
    id: 'evt_unrelated_1',
    object: 'event',
    type: 'customer.created',
    api_version: '2026-10-28.endive',
    created: Math.floor(Date.now() / 1000),
    data: { object: { id: 'cus_x', object: 'customer' } },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
  };
  const answer = await deliver(JSON.stringify(event));
  t.equal(answer.status, 200);
  t.same(answer.body, { received: true, applied: false });
});

t.test('the endpoint: POST only, one per provider, bounded body, outside /api/v1', async (t) => {
  errorShape(t, await request(app.url, '/billing-webhooks/stripe', { userAgent: null }), 405, 'method_not_allowed');
  errorShape(
    t,
    await request(app.url, '/billing-webhooks/paypal', { method: 'POST', rawBody: '{}' }),
    404,
    'not_found',
  );
  errorShape(
    t,
    await request(app.url, '/api/v1/billing-webhooks/stripe', { method: 'POST', rawBody: '{}' }),
    404,
    'not_found',
  );
  const big = 'x'.repeat(1024 * 1024 + 1);
  const res = await request(app.url, '/billing-webhooks/stripe', { method: 'POST', rawBody: big });
  t.equal(res.status, 400, 'a body over 1 MB is refused');
});
