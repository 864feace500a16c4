import t from 'tap';
import {
  grantedPlan,
  hasSubscription,
  isHeld,
  NO_SUBSCRIPTION,
  type SubscriptionState,
} from '../../../core/platform/billing/billing-account.types.js';
import { NoBillingProvider, type BillingProvider } from '../../../core/platform/billing/billing-provider.js';
import { isHttpsUrl, storagePurchase, withQueryParam } from '../../../core/platform/billing/billing-rules.js';

/** The small rules the billing routes and GET /billing share. */
t.test('checkout=... is appended to the query, the rest kept byte for byte, before a fragment', async (t) => {
  t.equal(withQueryParam('https://a.example/b', 'checkout=success'), 'https://a.example/b?checkout=success');
  t.equal(withQueryParam('https://a.example/b?x=1', 'checkout=success'), 'https://a.example/b?x=1&checkout=success');
  t.equal(withQueryParam('https://a.example/b?', 'checkout=cancelled'), 'https://a.example/b?checkout=cancelled');
  t.equal(withQueryParam('https://a.example/b?x=1&', 'checkout=success'), 'https://a.example/b?x=1&checkout=success');
  t.equal(withQueryParam('https://a.example/b#tab', 'checkout=success'), 'https://a.example/b?checkout=success#tab');
  t.equal(
    withQueryParam('https://a.example/b?session={CHECKOUT_SESSION_ID}&q=a%20b', 'checkout=success'),
    'https://a.example/b?session={CHECKOUT_SESSION_ID}&q=a%20b&checkout=success',
    "Stripe's placeholder and the encoding untouched",
  );
});

t.test('return_url must be absolute https', async (t) => {
  t.ok(isHttpsUrl('https://app.example.com/billing'));
  for (const bad of ['http://app.example.com', '//app.example.com', '/billing', 'https://', 'javascript:alert(1)', ''])
    t.notOk(isHttpsUrl(bad), bad || '(empty)');
});

const state = (changes: Partial<SubscriptionState>): SubscriptionState => ({
  ...NO_SUBSCRIPTION,
  subscriptionId: 'sub_1',
  planCode: 'pro',
  ...changes,
});

t.test('which statuses hold a subscription, grant its plan, hold purchases', async (t) => {
  const cases: Array<[string, boolean, string | null, boolean]> = [
    ['active', true, 'pro', false],
    ['trialing', true, 'pro', false],
    ['past_due', true, 'pro', true],
    ['unpaid', true, null, true],
    ['incomplete', true, null, true],
    ['paused', true, null, true],
    ['canceled', false, null, false],
    ['incomplete_expired', false, null, false],
  ];
  for (const [status, held, plan, onHold] of cases) {
    const s = state({ status });
    t.equal(hasSubscription(s), held, `${status}: has a subscription`);
    t.equal(grantedPlan(s), plan, `${status}: grants ${plan}`);
    t.equal(isHeld(s), onHold, `${status}: purchases held`);
  }
  t.notOk(hasSubscription(NO_SUBSCRIPTION));
  t.equal(grantedPlan(state({ status: 'active', planCode: null })), null, 'add-ons only: no plan');
  const failure = { invoice_id: 'in_1', amount_due_cents: 1, currency: 'usd', attempt_count: 1, next_attempt_at: null };
  t.ok(isHeld(state({ status: 'active', paymentFailure: failure })), 'a failed payment holds purchases');
});

t.test('storage_addon_purchase', async (t) => {
  const selling = (codes: string[]): BillingProvider =>
    Object.assign(new NoBillingProvider(), { configured: true, sells: (code: string) => codes.includes(code) });
  t.equal(storagePurchase(new NoBillingProvider(), null), 'unavailable', 'no provider');
  t.equal(storagePurchase(selling(['pro']), null), 'unavailable', 'no storage price');
  t.equal(storagePurchase(selling(['inbox_storage_100gb']), null), 'checkout');
  t.equal(storagePurchase(selling(['inbox_storage_100gb']), state({ status: 'active' })), 'add_item');
  t.equal(storagePurchase(selling(['inbox_storage_100gb']), state({ status: 'past_due' })), 'held');
  t.equal(storagePurchase(selling(['inbox_storage_100gb']), state({ status: 'canceled' })), 'checkout');
});
