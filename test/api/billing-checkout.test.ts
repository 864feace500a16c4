import t from 'tap';
import { checkoutSessionSchema, portalSessionSchema } from '../../api/routes/billing.schemas.js';
import { startBillingApp, PRICES } from '../helpers/billing-app.js';
import { expectEntry } from '../helpers/audit-entries.js';
import { errorShape, request } from '../helpers/http.js';

/**
 * POST /billing/checkout and POST /billing/portal against the Stripe double: what reaches Stripe
 * (mode, prices, quantities, return URLs with checkout=..., no email with a key), every refusal
 * of the spec with its status, name and body, and Stripe unreachable (503, nothing stored).
 */
const billing = await startBillingApp();
t.teardown(() => billing.close());
const { app, stripe } = billing;
const knex = app.runtime.db.knex;
const dashboard = app.url;

const checkout = (token: string, body: unknown) =>
  request(app.url, '/billing/checkout', { method: 'POST', token, body });
const customerRow = (teamId: string) => knex('billing_accounts').where({ team_id: teamId }).first();
const lastSessionRequest = () => stripe.requestsTo('/v1/checkout/sessions', 'POST').at(-1)!;

t.test('a plan: a subscription-mode session for its price, URLs from return_url, no email', async (t) => {
  const team = await app.createTeam('Plan Buyer');
  const res = await checkout(team.token, {
    plan_code: 'pro',
    return_url: 'https://app.example.com/billing?tab=plan#top',
  });
  t.equal(res.status, 200);
  t.ok(checkoutSessionSchema.safeParse(res.body).success, 'matches the documented schema');
  t.match(res.body.url, `${stripe.url}/checkout/cs_test_`);
  const sent = lastSessionRequest().body;
  t.match(sent, {
    mode: 'subscription',
    line_items: [{ price: PRICES.pro, quantity: '1' }],
    success_url: 'https://app.example.com/billing?tab=plan&checkout=success#top',
    cancel_url: 'https://app.example.com/billing?tab=plan&checkout=cancelled#top',
    client_reference_id: team.teamId,
    subscription_data: { metadata: { mailroom_team_id: team.teamId } },
  });
  t.equal((sent.line_items as unknown[]).length, 1, 'one line: the plan');
  t.notOk('customer_email' in sent, 'no email in the session');
  const row = await customerRow(team.teamId);
  t.equal(sent.customer, row.customer_id, 'the session is for the team customer');
  const [created] = stripe.requestsTo('/v1/customers', 'POST');
  t.notOk('email' in created!.body, 'the customer is created without an email (API key)');
  t.match(created!.body, { name: 'Plan Buyer', metadata: { mailroom_team_id: team.teamId } });
  t.equal(created!.idempotencyKey, `mailroom-customer-${team.teamId}`, 'idempotent per team');
  // expires_at is Stripe's, as an ISO timestamp
  const session = stripe.store.checkouts.get(String(res.body.url).split('/').pop()!)!.session;
  t.equal(res.body.expires_at, new Date(session.expires_at * 1000).toISOString());

  // A second checkout (the first was never paid) reuses the customer.
  t.equal((await checkout(team.token, { plan_code: 'scale' })).status, 200);
  t.equal(stripe.requestsTo('/v1/customers', 'POST').length, 1, 'no second customer');
  t.equal(lastSessionRequest().body.customer, row.customer_id);
});

t.test('inbox seats by unit; dashboard URLs from return_to', async (t) => {
  const team = await app.createTeam('Seats');
  const res = await checkout(team.token, { addon_code: 'inbox_seat', quantity: 3, return_to: 'inbox' });
  t.equal(res.status, 200);
  t.match(lastSessionRequest().body, {
    mode: 'subscription',
    line_items: [{ price: PRICES.seat, quantity: '3' }],
    success_url: `${dashboard}/dashboard/received?checkout=success`,
    cancel_url: `${dashboard}/dashboard/received?checkout=cancelled`,
  });
  await checkout(team.token, { addon_code: 'inbox_storage_100gb', return_to: 'inbox_settings' });
  t.match(lastSessionRequest().body, {
    line_items: [{ price: PRICES.storage, quantity: '1' }],
    success_url: `${dashboard}/dashboard/received?view=settings&checkout=success`,
  });
  await checkout(team.token, { plan_code: 'pro' });
  t.match(lastSessionRequest().body, {
    success_url: `${dashboard}/dashboard/billing?checkout=success`,
    cancel_url: `${dashboard}/dashboard/billing?checkout=cancelled`,
  });
});

t.test('every refusal of checkout, before anything reaches Stripe', async (t) => {
  const team = await app.createTeam('Refusals');
  const before = stripe.requests.length;
  const refused = async (body: unknown, status: number, name: string, path?: string) => {
    const error = errorShape(t, await checkout(team.token, body), status, name);
    if (path) t.match(error.errors, [{ path }], `names ${path}`);
    return error;
  };
  t.match((await refused({}, 422, 'missing_required_field', 'plan_code')).message, /plan_code or addon_code/);
  await refused({ return_url: 'https://a.example' }, 422, 'missing_required_field');
  t.match(
    (await refused({ plan_code: 'pro', addon_code: 'inbox_seat' }, 422, 'invalid_parameter')).message,
    /not both/,
  );
  for (const url of ['http://app.example.com/billing', '/billing', 'not a url', 'ftp://x.example/'])
    await refused({ plan_code: 'pro', return_url: url }, 422, 'validation_error', 'return_url');
  await refused({ plan_code: 'pro', quantity: 2 }, 422, 'validation_error', 'quantity');
  await refused({ addon_code: 'inbox_storage_100gb', quantity: 2 }, 422, 'validation_error', 'quantity');
  await refused({ addon_code: 'inbox_seat', quantity: 0 }, 400, 'validation_error', 'quantity');
  await refused({ addon_code: 'inbox_seat', quantity: 101 }, 400, 'validation_error', 'quantity');
  await refused({ addon_code: 'inbox_seat', quantity: 1.5 }, 400, 'validation_error', 'quantity');
  await refused({ plan_code: 'pro', return_to: 'home' }, 400, 'validation_error', 'return_to');
  t.match((await refused({ plan_code: 'gold' }, 422, 'validation_error', 'plan_code')).message, /Unknown plan gold/);
  t.match(
    (await refused({ plan_code: 'free' }, 422, 'validation_error', 'plan_code')).message,
    /no price is configured/,
  );
  t.match((await refused({ plan_code: 'unlimited' }, 422, 'validation_error')).message, /not sold/);
  t.match((await refused({ addon_code: 'sso' }, 422, 'validation_error', 'addon_code')).message, /Unknown add-on/);
  t.equal(stripe.requests.length, before, 'no call reached Stripe');
  t.notOk(await customerRow(team.teamId), 'no customer');
});

t.test('a team that already has a subscription: 422, use plan change and add-ons', async (t) => {
  const team = await app.createTeam('Subscribed');
  await billing.subscribe(team.token, { plan_code: 'pro' });
  for (const body of [{ plan_code: 'scale' }, { addon_code: 'inbox_seat', quantity: 2 }]) {
    const error = errorShape(t, await checkout(team.token, body), 422, 'validation_error');
    t.match(error.message, /already has a subscription.*POST \/billing\/plan.*POST \/billing\/addons/);
  }
  t.match((await request(app.url, '/billing', { token: team.token })).body, { checkout_available: false });
});

t.test('Stripe unreachable: 503, and no customer id stored pointing nowhere', async (t) => {
  const team = await app.createTeam('Offline');
  stripe.unreachable(true);
  t.teardown(() => stripe.unreachable(false));
  const error = errorShape(t, await checkout(team.token, { plan_code: 'pro' }), 503, 'service_unavailable');
  t.match(error.message, /payment provider could not be reached/);
  t.notOk(await customerRow(team.teamId), 'nothing stored');
  errorShape(
    t,
    await request(app.url, '/billing/portal', { method: 'POST', token: team.token }),
    503,
    'service_unavailable',
  );
  stripe.unreachable(false);
  // Once Stripe answers again, the customer is created then.
  t.equal((await checkout(team.token, { plan_code: 'pro' })).status, 200);
  t.ok(await customerRow(team.teamId));
});

t.test('Stripe refusing a request (a price deleted in Stripe): 503 naming it, nothing charged', async (t) => {
  const team = await app.createTeam('Refused');
  stripe.failNext('POST', '/v1/checkout/sessions', 400, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such price: '${PRICES.pro}'`,
  });
  const error = errorShape(t, await checkout(team.token, { plan_code: 'pro' }), 503, 'service_unavailable');
  t.match(error.message, /refused the request \(resource_missing\)/);
});

t.test('two first uses at once: one customer', async (t) => {
  const team = await app.createTeam('Racing');
  const answers = await Promise.all([
    checkout(team.token, { plan_code: 'pro' }),
    checkout(team.token, { plan_code: 'pro' }),
  ]);
  t.same(
    answers.map((a) => a.status),
    [200, 200],
  );
  const customers = new Set(
    stripe
      .requestsTo('/v1/checkout/sessions', 'POST')
      .slice(-2)
      .map((r) => r.body.customer),
  );
  t.equal(customers.size, 1, 'both sessions for one customer');
  const created = stripe
    .requestsTo('/v1/customers', 'POST')
    .filter((r) => r.body.metadata && (r.body.metadata as Record<string, string>).mailroom_team_id === team.teamId);
  t.ok(created.length >= 1 && created.slice(1).every((r) => r.replayed), 'a second create was a replay of the first');
  t.equal(stripe.store.customers.size, new Set([...stripe.store.customers.values()].map((c) => c.id)).size);
  t.equal([...stripe.store.customers.values()].filter((c) => c.metadata.mailroom_team_id === team.teamId).length, 1);
});

t.test('storage add-on without a price: 503 on both storage routes, before anything is charged', async (t) => {
  const noStorage = await startBillingApp({ storage: false });
  t.teardown(() => noStorage.close());
  const team = await noStorage.app.createTeam('No storage');
  t.match((await request(noStorage.app.url, '/billing', { token: team.token })).body, {
    storage_addon_purchase: 'unavailable',
    checkout_available: true,
  });
  const res = await request(noStorage.app.url, '/billing/checkout', {
    method: 'POST',
    token: team.token,
    body: { addon_code: 'inbox_storage_100gb' },
  });
  t.match(errorShape(t, res, 503, 'service_unavailable').message, /storage_addon_purchase is unavailable/);
  await noStorage.subscribe(team.token, { plan_code: 'pro' });
  const before = noStorage.stripe.requests.length;
  const add = await request(noStorage.app.url, '/billing/addons', {
    method: 'POST',
    token: team.token,
    body: { addon_code: 'inbox_storage_100gb' },
  });
  errorShape(t, add, 503, 'service_unavailable');
  t.equal(noStorage.stripe.requests.length, before, 'nothing reached Stripe');
});

t.test('the portal: a session for the team customer, back to the dashboard', async (t) => {
  const team = await app.createTeam('Portal');
  const res = await request(app.url, '/billing/portal', { method: 'POST', token: team.token });
  t.equal(res.status, 200);
  t.ok(portalSessionSchema.safeParse(res.body).success, 'matches the documented schema');
  t.match(res.body, { object: 'portal_session', url: `${stripe.url}/portal/bps_` });
  await expectEntry(t, app, team.token, 'billing.portal_opened', { resource: { type: 'team', id: team.teamId } });
  t.notOk(
    JSON.stringify(await app.runtime.db.knex('audit_log_entries').where({ team_id: team.teamId })).includes('bps_'),
    'the portal URL (a bearer link) is not recorded',
  );
  const row = await customerRow(team.teamId);
  t.ok(row, 'a team with no customer yet gets one');
  t.match(stripe.requestsTo('/v1/billing_portal/sessions', 'POST').at(-1)!.body, {
    customer: row.customer_id,
    return_url: `${dashboard}/dashboard/billing`,
  });
  // An OAuth token never reaches it, whatever its scopes (no scope reaches the paid routes).
  const { apiKeys } = app.runtime.services;
  const authenticate = apiKeys.authenticate.bind(apiKeys);
  apiKeys.authenticate = async (bearer, audience) => ({
    ...(await authenticate(bearer, audience)),
    scopes: ['billing:read'],
  });
  t.teardown(() => void (apiKeys.authenticate = authenticate));
  errorShape(
    t,
    await request(app.url, '/billing/portal', { method: 'POST', token: team.token }),
    403,
    'invalid_permission',
  );
  errorShape(t, await checkout(team.token, { plan_code: 'pro' }), 403, 'invalid_permission');
});
