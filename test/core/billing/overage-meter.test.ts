import t from 'tap';
import { METER_WINDOW_MS } from '../../../core/platform/billing/overage-meter.service.js';
import { reportBillingOverageJob } from '../../../scheduler/jobs/report-billing-overage.job.js';
import { PRICES, startBillingApp } from '../../helpers/billing-app.js';
import { movableClock } from '../../helpers/clock.js';
import { request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * Overage of a paid plan reported to Stripe's billing meter: from the usage ledger (records
 * inserted here directly, as the sending path writes them), the increase since the last report,
 * once per team and hour window, stored pending before Stripe is called, retried with the same
 * identifier until accepted, never twice.
 */
const clock = movableClock();
const billing = await startBillingApp({ clock, meter: true });
t.teardown(() => billing.close());
const { app, stripe } = billing;
const { services } = app.runtime;
const knex = app.runtime.db.knex;

const team = await app.createTeam('Heavy sender', 'free');
const subscription = await billing.subscribe(team.token, { plan_code: 'pro' });
const account = (await knex('billing_accounts').where({ team_id: team.teamId }).first())!;
const periodStart = new Date(subscription.items.data[0]!.current_period_start * 1000);
const included = 50_000;

const send = (quantity: number) =>
  services.usage.record(knex, { teamId: team.teamId, category: 'transactional_emails', quantity, at: clock.now() });
const run = () => reportBillingOverageJob.run(services);
const windowOf = (at: Date) => new Date(Math.floor(at.getTime() / METER_WINDOW_MS) * METER_WINDOW_MS);
const identifier = (at: Date) => `${team.teamId}:${periodStart.toISOString()}:${windowOf(at).toISOString()}`;
const nextHour = () => clock.advanceTo(clock.now().getTime() + METER_WINDOW_MS);
const reports = () => knex('billing_meter_reports').where({ team_id: team.teamId }).orderBy('created_at');

t.test('checkout put the metered overage price on the subscription; GET /billing shows its rate', async (t) => {
  const sent = stripe.requestsTo('/v1/checkout/sessions', 'POST').at(-1)!.body;
  t.same(sent.line_items, [{ price: PRICES.pro, quantity: '1' }, { price: PRICES.proOverage }], 'metered: no quantity');
  t.match((await request(app.url, '/billing', { token: team.token })).body.plan, {
    code: 'pro',
    monthly_price_cents: 2000,
    overage_per_1000_cents: 1000,
  });
});

t.test('within the allowance: nothing reported', async (t) => {
  await send(included);
  t.match(await run(), { reported: 0, accepted: 0, failed: 0 });
  t.equal(stripe.meterEvents.length, 0);
});

t.test('above it: the increase, once per window', async (t) => {
  await send(10);
  t.match(await run(), { reported: 1, accepted: 1, failed: 0 });
  t.equal(stripe.meterEvents.length, 1);
  t.match(stripe.meterEvents[0], {
    event_name: 'mailroom_emails',
    identifier: identifier(clock.now()),
    payload: { stripe_customer_id: account.customer_id, value: '10' },
  });
  t.match(await reports(), [{ identifier: identifier(clock.now()), quantity: 10, status: 'accepted', attempts: 1 }]);

  t.match(await run(), { reported: 0 }, 'run again: nothing new');
  await send(5);
  t.match(await run(), { reported: 0 }, 'more in the same window waits for the next one');
  t.equal(stripe.meterEvents.length, 1);
  nextHour();
  t.match(await run(), { reported: 1, accepted: 1 });
  t.match(stripe.meterEvents[1], { identifier: identifier(clock.now()), payload: { value: '5' } });
});

t.test('Stripe failing: the report stays pending and is sent again with the same identifier', async (t) => {
  await send(7);
  nextHour();
  stripe.failNext('POST', '/v1/billing/meter_events', 500, { type: 'api_error', message: 'Something went wrong' });
  t.match(await run(), { reported: 1, accepted: 0, failed: 1 });
  const [pending] = (await reports()).filter((r: { status: string }) => r.status === 'pending');
  t.match(
    pending,
    { identifier: identifier(clock.now()), quantity: 7, attempts: 1 },
    'stored before Stripe was called',
  );
  t.match(pending.last_error, /could not be reached/);
  t.equal(stripe.meterEvents.length, 2, 'not accepted at Stripe');

  const refused = stripe.refusedConnections;
  stripe.unreachable(true);
  t.match(await run(), { retried: 1, failed: 1 }, 'unreachable: still pending');
  t.ok(stripe.refusedConnections > refused, 'the second attempt found Stripe unreachable');
  stripe.unreachable(false);
  t.match(await run(), { retried: 1, accepted: 1, reported: 0 });
  const attempts = stripe
    .requestsTo('/v1/billing/meter_events', 'POST')
    .filter((r) => r.body.identifier === pending.identifier);
  t.equal(attempts.length, 2, 'the failed attempt and the accepted one reached Stripe');
  t.ok(
    attempts.every((r) => r.body.payload && (r.body.payload as { value: string }).value === '7'),
    'each the same report',
  );
  t.equal(stripe.meterEvents.filter((e) => e.identifier === pending.identifier).length, 1, 'accepted once');
});

t.test('a report Stripe accepted before we heard back: the duplicate refusal means accepted', async (t) => {
  await send(3);
  nextHour();
  // Stripe got the event (the answer was lost): it already holds this identifier.
  await stripe.client().billing.meterEvents.create({
    event_name: 'mailroom_emails',
    payload: { stripe_customer_id: account.customer_id, value: '3' },
    identifier: identifier(clock.now()),
  });
  t.match(await run(), { reported: 1, accepted: 1, failed: 0 });
  t.equal(stripe.meterEvents.filter((e) => e.identifier === identifier(clock.now())).length, 1, 'not twice');
  t.match((await reports()).at(-1), { status: 'accepted', quantity: 3 });
});

t.test('never twice: every identifier once, the values add up to the overage', async (t) => {
  const ids = stripe.meterEvents.map((e) => e.identifier);
  t.equal(new Set(ids).size, ids.length);
  t.equal(
    stripe.meterEvents.reduce((sum, e) => sum + Number(e.payload.value), 0),
    10 + 5 + 7 + 3,
  );
  nextHour();
  t.match(await run(), { retried: 0, reported: 0, accepted: 0 }, 'nothing left to report');
});

t.test('teams without overage billing are not reported', async (t) => {
  const storageOnly = await app.createTeam('Storage only', 'free');
  await billing.subscribe(storageOnly.token, { addon_code: 'inbox_storage_100gb' });
  await services.usage.record(knex, {
    teamId: storageOnly.teamId,
    category: 'transactional_emails',
    quantity: 10_000,
    at: clock.now(),
  });
  nextHour();
  const before = stripe.meterEvents.length;
  await run();
  t.equal(stripe.meterEvents.length, before, 'a free-plan team (a hard monthly cap) has no overage');
});

t.test('no provider, or no meter: the job does nothing', async (t) => {
  const plain = await startTestApp();
  t.teardown(() => plain.close());
  t.same(await reportBillingOverageJob.run(plain.runtime.services), {
    retried: 0,
    reported: 0,
    accepted: 0,
    failed: 0,
  });
  const noMeter = await startBillingApp();
  t.teardown(() => noMeter.close());
  t.same(await reportBillingOverageJob.run(noMeter.app.runtime.services), {
    retried: 0,
    reported: 0,
    accepted: 0,
    failed: 0,
  });
});
