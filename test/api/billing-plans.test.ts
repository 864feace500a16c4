import t from 'tap';
import { startBillingApp } from '../helpers/billing-app.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * GET /billing/plans: every plan of the catalogue with what it includes; with a payment provider,
 * the plans it sells carry the price read from it and are purchasable; without one, none is.
 */
type Offer = {
  code: string;
  monthly_price_cents: number | null;
  currency: string | null;
  purchasable: boolean;
  current: boolean;
  single_sign_on: boolean;
};
const byCode = (body: { data: Offer[] }) => Object.fromEntries(body.data.map((offer) => [offer.code, offer]));

t.test(
  'without a payment provider nothing is purchasable; the free plan costs 0, the others show no price',
  async (t) => {
    const app = await startTestApp();
    t.teardown(() => app.close());
    const team = await app.createTeam('No provider', 'pro');
    const res = await request(app.url, '/billing/plans', { token: team.token });
    t.equal(res.status, 200);
    t.match(res.body, { object: 'list', has_more: false });
    const plans = byCode(res.body);
    t.same(Object.keys(plans), ['free', 'pro', 'scale', 'unlimited'], 'the catalogue, in order');
    t.match(plans.free, { monthly_price_cents: 0, purchasable: false, current: false });
    t.match(plans.pro, { monthly_price_cents: null, currency: null, purchasable: false, current: true });
    t.match(plans.free, { included_emails: 3000, daily_cap: 100, ai_credits_monthly: 25 });
    t.same(
      Object.values(plans).map((plan) => [plan.code, plan.single_sign_on]),
      [
        ['free', false],
        ['pro', false],
        ['scale', true],
        ['unlimited', true],
      ],
      'which plans include single sign-on',
    );
    const sending = await app.runtime.services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });
    errorShape(t, await request(app.url, '/billing/plans', { token: sending.token }), 401, 'restricted_api_key');
  },
);

t.test('with Stripe: the sold plans carry their price and currency from Stripe and are purchasable', async (t) => {
  const billing = await startBillingApp();
  t.teardown(() => billing.close());
  const team = await billing.app.createTeam('Shopper', 'free');
  const res = await request(billing.app.url, '/billing/plans', { token: team.token });
  t.equal(res.status, 200);
  const plans = byCode(res.body);
  t.match(plans.pro, { monthly_price_cents: 2000, currency: 'usd', purchasable: true, current: false });
  t.match(plans.scale, { monthly_price_cents: 9000, currency: 'usd', purchasable: true });
  t.match(plans.free, { monthly_price_cents: 0, purchasable: false, current: true });
  t.match(
    plans.unlimited,
    { monthly_price_cents: null, purchasable: false },
    'a plan with no configured price is not sold',
  );
  t.ok(billing.stripe.requestsTo('/v1/prices/price_pro_monthly', 'GET').length >= 1, 'the price was read from Stripe');
});
