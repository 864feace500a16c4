import t from 'tap';
import { billingSchema, invoiceListSchema } from '../../api/routes/billing.schemas.js';
import { INVOICE_CACHE_MS } from '../../core/platform/billing/invoice-cache.js';
import { PRICES, startBillingApp } from '../helpers/billing-app.js';
import { movableClock } from '../helpers/clock.js';
import { expectEntry } from '../helpers/audit-entries.js';
import { errorShape, request } from '../helpers/http.js';

/**
 * What a subscribed team changes through the API: its plan (POST /billing/plan, the plan item
 * moved to the other price with Stripe's default proration), add-ons (POST /billing/addons: a new
 * item, or more seats), and its invoices (GET /billing/invoices, cached 60 seconds per team).
 */
const clock = movableClock();
const billing = await startBillingApp({ clock });
t.teardown(() => billing.close());
const { app, stripe } = billing;

const post = (token: string, path: string, body: unknown) => request(app.url, path, { method: 'POST', token, body });
const teamPlan = async (token: string) => (await request(app.url, '/team', { token })).body.plan.code as string;

t.test('plan change: the plan item moves to the new price; the team plan follows at once', async (t) => {
  const team = await app.createTeam('Upgrader', 'free');
  const subscription = await billing.subscribe(team.token, { plan_code: 'pro' });
  const planItem = subscription.items.data[0]!;
  const res = await post(team.token, '/billing/plan', { plan_code: 'scale' });
  t.equal(res.status, 200);
  t.ok(billingSchema.safeParse(res.body).success, 'answers the billing object');
  t.match(res.body, { plan: { code: 'scale', monthly_price_cents: 9000 }, effective_plan_code: 'scale' });
  const update = stripe.requestsTo(`/v1/subscriptions/${subscription.id}`, 'POST').at(-1)!;
  t.same(update.body, { items: [{ id: planItem.id, price: PRICES.scale }] }, 'only the plan item, default proration');
  t.equal(await teamPlan(team.token), 'scale');
  t.equal(stripe.store.subscription(subscription.id).items.data[0]!.price.id, PRICES.scale);
  // Stripe's own announcement of the change, delivered afterwards, agrees.
  for (const event of stripe.takeEvents()) t.equal((await stripe.deliver(billing.webhookUrl, event)).status, 200);
  t.equal(await teamPlan(team.token), 'scale');
  // The audit log: the checkout and the change by the key, Stripe's changes by the appliance.
  await expectEntry(t, app, team.token, 'billing.checkout_started', {
    metadata: { plan_code: 'pro', addon_code: null },
  });
  await expectEntry(t, app, team.token, 'billing.plan_changed', {
    actor: { type: 'api_key', id: team.keyId },
    resource: { type: 'team', id: team.teamId },
    metadata: { plan_code: 'scale', previous_plan_code: 'pro' },
  });
  await expectEntry(t, app, team.token, 'billing.subscription_synced', {
    actor: { type: 'system', id: null },
    resource: { type: 'subscription', id: subscription.id },
    metadata: { provider: 'stripe', status: 'active', plan_code: 'scale' },
  });

  t.match(
    errorShape(t, await post(team.token, '/billing/plan', { plan_code: 'scale' }), 422, 'validation_error').message,
    /already on the scale plan/,
  );
  t.match(
    errorShape(t, await post(team.token, '/billing/plan', { plan_code: 'gold' }), 422, 'validation_error').message,
    /Unknown plan/,
  );
  t.match(
    errorShape(t, await post(team.token, '/billing/plan', { plan_code: 'free' }), 422, 'validation_error').message,
    /not sold/,
  );
  t.match(errorShape(t, await post(team.token, '/billing/plan', {}), 422, 'missing_required_field').errors, [
    { path: 'plan_code' },
  ]);
});

t.test('no subscription: plan change and add-ons point to checkout (details.next)', async (t) => {
  const team = await app.createTeam('Nothing yet', 'free');
  const before = stripe.requests.length;
  for (const [path, body] of [
    ['/billing/plan', { plan_code: 'pro' }],
    ['/billing/addons', { addon_code: 'inbox_seat', quantity: 2 }],
    ['/billing/addons', { addon_code: 'inbox_storage_100gb' }],
  ] as const) {
    const error = errorShape(t, await post(team.token, path, body), 422, 'validation_error');
    t.same(error.details, { next: 'checkout' }, `${path}: details.next is checkout`);
    t.match(error.message, /POST \/billing\/checkout/);
  }
  t.equal(stripe.requests.length, before, 'nothing reached Stripe');
});

t.test('add-ons: a new item, then more seats; storage once', async (t) => {
  const team = await app.createTeam('Growing', 'free');
  const subscription = await billing.subscribe(team.token, { plan_code: 'pro' });
  const first = await post(team.token, '/billing/addons', { addon_code: 'inbox_seat', quantity: 2 });
  t.equal(first.status, 200);
  t.ok(billingSchema.safeParse(first.body).success, 'answers the billing object');
  t.match(first.body, { addons: [{ code: 'inbox_seat', quantity: 2 }], inbox_seats: { quantity: 2 } });
  t.same(stripe.requestsTo('/v1/subscription_items', 'POST').at(-1)!.body, {
    subscription: subscription.id,
    price: PRICES.seat,
    quantity: '2',
  });
  const seatItem = stripe.store.subscription(subscription.id).items.data.find((i) => i.price.id === PRICES.seat)!;
  const more = await post(team.token, '/billing/addons', { addon_code: 'inbox_seat' });
  t.match(more.body, { inbox_seats: { quantity: 3 } });
  t.same(stripe.requestsTo(`/v1/subscriptions/${subscription.id}`, 'POST').at(-1)!.body, {
    items: [{ id: seatItem.id, quantity: '3' }],
  });
  await expectEntry(t, app, team.token, 'billing.addon_added', {
    metadata: { addon_code: 'inbox_seat', quantity: null },
  });
  const storage = await post(team.token, '/billing/addons', { addon_code: 'inbox_storage_100gb' });
  t.match(storage.body, {
    addons: [
      { code: 'inbox_seat', quantity: 3 },
      { code: 'inbox_storage_100gb', quantity: 1 },
    ],
    plan: { code: 'pro' },
  });
  t.match(
    errorShape(
      t,
      await post(team.token, '/billing/addons', { addon_code: 'inbox_storage_100gb' }),
      422,
      'validation_error',
    ).message,
    /already has inbox_storage_100gb/,
  );
  errorShape(
    t,
    await post(team.token, '/billing/addons', { addon_code: 'inbox_storage_100gb', quantity: 2 }),
    422,
    'validation_error',
  );
  errorShape(
    t,
    await post(team.token, '/billing/addons', { addon_code: 'inbox_seat', quantity: 101 }),
    400,
    'validation_error',
  );
  errorShape(t, await post(team.token, '/billing/addons', { addon_code: 'parking' }), 422, 'validation_error');
  errorShape(t, await post(team.token, '/billing/addons', { quantity: 1 }), 422, 'missing_required_field');
  t.equal(await teamPlan(team.token), 'pro', 'add-ons leave the plan alone');

  t.test('while a payment has failed, nothing more is sold', async (t) => {
    stripe.failPayment(subscription.id);
    for (const event of stripe.takeEvents()) await stripe.deliver(billing.webhookUrl, event);
    const error = errorShape(
      t,
      await post(team.token, '/billing/addons', { addon_code: 'inbox_seat' }),
      422,
      'validation_error',
    );
    t.match(error.message, /payment of the subscription has failed.*billing portal/);
  });
});

t.test('Stripe unreachable during a plan change: 503, nothing changed', async (t) => {
  const team = await app.createTeam('Stuck', 'free');
  await billing.subscribe(team.token, { plan_code: 'pro' });
  stripe.unreachable(true);
  errorShape(t, await post(team.token, '/billing/plan', { plan_code: 'scale' }), 503, 'service_unavailable');
  errorShape(t, await post(team.token, '/billing/addons', { addon_code: 'inbox_seat' }), 503, 'service_unavailable');
  stripe.unreachable(false);
  t.equal(await teamPlan(team.token), 'pro');
  t.match((await request(app.url, '/billing', { token: team.token })).body, { addons: [], plan: { code: 'pro' } });
});

t.test('invoices: read from Stripe, cached 60 seconds per team', async (t) => {
  const team = await app.createTeam('Invoiced', 'free');
  const list = (token = team.token) => request(app.url, '/billing/invoices', { token });
  const calls = () => stripe.requestsTo('/v1/invoices', 'GET').length;

  const none = await list();
  t.same(none.body, { object: 'list', has_more: false, data: [] }, 'no customer: an empty list, Stripe not asked');
  t.equal(calls(), 0);

  const other = await app.createTeam('Other invoiced', 'free');
  await billing.subscribe(other.token, { plan_code: 'scale' });
  const subscription = await billing.subscribe(team.token, { plan_code: 'pro' });
  clock.advanceTo(clock.now().getTime() + INVOICE_CACHE_MS + 1000); // the empty answer above is stale now
  const first = await list();
  t.equal(first.status, 200);
  t.ok(invoiceListSchema.safeParse(first.body).success, 'matches the documented schema');
  const invoice = [...stripe.store.invoices.values()].find((i) => i.subscription === subscription.id)!;
  t.same(
    first.body,
    {
      object: 'list',
      has_more: false,
      data: [
        {
          id: invoice.id,
          number: invoice.number,
          status: 'paid',
          total_cents: 2000,
          currency: 'usd',
          created_at: new Date(invoice.created * 1000).toISOString(),
          hosted_invoice_url: invoice.hosted_invoice_url,
          invoice_pdf: invoice.invoice_pdf,
        },
      ],
    },
    "only the team's own invoice",
  );
  t.match(stripe.requestsTo('/v1/invoices', 'GET').at(-1)!.query, { customer: invoice.customer, limit: '100' });
  const afterFirst = calls();

  clock.advanceTo(clock.now().getTime() + 59_000);
  t.same((await list()).body, first.body, 'within 60 seconds: the same list');
  t.equal(calls(), afterFirst, '... without asking Stripe');
  t.equal((await list(other.token)).body.data[0].total_cents, 9000, 'another team has its own cache entry');
  t.equal(calls(), afterFirst + 1);

  clock.advanceTo(clock.now().getTime() + 2_000);
  await list();
  t.equal(calls(), afterFirst + 2, 'after 60 seconds Stripe is asked again');

  stripe.unreachable(true);
  clock.advanceTo(clock.now().getTime() + INVOICE_CACHE_MS + 1000);
  errorShape(t, await list(), 503, 'service_unavailable');
  stripe.unreachable(false);

  // billing:read reaches the invoices, as GET /billing.
  const { apiKeys } = app.runtime.services;
  const authenticate = apiKeys.authenticate.bind(apiKeys);
  apiKeys.authenticate = async (bearer, audience) => ({
    ...(await authenticate(bearer, audience)),
    scopes: ['billing:read'],
  });
  t.teardown(() => void (apiKeys.authenticate = authenticate));
  t.equal((await list()).status, 200, 'billing:read reaches GET /billing/invoices');
  errorShape(t, await post(team.token, '/billing/plan', { plan_code: 'scale' }), 403, 'invalid_permission');
  errorShape(t, await post(team.token, '/billing/addons', { addon_code: 'inbox_seat' }), 403, 'invalid_permission');
});
