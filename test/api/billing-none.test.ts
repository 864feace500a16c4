import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * billing.provider `none` (the default): nothing can be charged, so every paid route answers the
 * spec's refusal for an appliance that cannot charge (503 service_unavailable, saying billing is
 * not configured), with a valid body, and the webhook endpoint does not exist. GET /billing stays
 * as it was (test/api/billing.test.ts).
 */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam('no-provider', 'pro');

const paidRoutes: Array<[string, string, unknown]> = [
  ['POST', '/billing/checkout', { plan_code: 'pro' }],
  ['POST', '/billing/checkout', { addon_code: 'inbox_seat', quantity: 2 }],
  ['POST', '/billing/checkout', { addon_code: 'inbox_storage_100gb' }],
  ['POST', '/billing/portal', undefined],
  ['GET', '/billing/invoices', undefined],
  ['POST', '/billing/plan', { plan_code: 'scale' }],
  ['POST', '/billing/addons', { addon_code: 'inbox_seat', quantity: 1 }],
  ['POST', '/billing/addons', { addon_code: 'inbox_storage_100gb' }],
];

for (const [method, path, body] of paidRoutes) {
  t.test(`${method} ${path} ${JSON.stringify(body ?? '')}: 503, billing not configured`, async (t) => {
    for (const base of ['', '/api/v1']) {
      const res = await request(app.url, `${base}${path}`, { method, token: team.token, body });
      const error = errorShape(t, res, 503, 'service_unavailable');
      t.match(error.message, /billing is not configured/i, 'says billing is not configured');
    }
  });
}

t.test('no billing account was created by any of them', async (t) => {
  t.equal(Number((await app.runtime.db.knex('billing_accounts').count({ n: '*' }).first())!.n), 0);
  t.match((await request(app.url, '/billing', { token: team.token })).body, {
    subscription: { status: 'none' },
    checkout_available: false,
    storage_addon_purchase: 'unavailable',
  });
});

t.test('the Stripe webhook endpoint does not exist without the provider', async (t) => {
  const res = await request(app.url, '/billing-webhooks/stripe', { method: 'POST', rawBody: '{}', userAgent: null });
  errorShape(t, res, 404, 'not_found');
  t.equal(Number((await app.runtime.db.knex('billing_webhook_events').count({ n: '*' }).first())!.n), 0);
});

t.test('credentials still come first: a sending key is refused before the 503', async (t) => {
  const sending = await app.runtime.services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });
  const res = await request(app.url, '/billing/portal', { method: 'POST', token: sending.token });
  errorShape(t, res, 401, 'restricted_api_key');
});
