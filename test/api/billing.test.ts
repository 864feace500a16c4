import t from 'tap';
import { billingSchema } from '../../api/routes/billing.routes.js';
import type { Caller } from '../../core/platform/auth/caller.js';
import { movableClock } from '../helpers/clock.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';
import { lowerPlanLimits } from '../helpers/plan-limits.js';

/**
 * GET /billing on an appliance with no payment provider: the plan and the quotas' own counts are
 * real, everything a provider would hold says "none". The clock is moved to the 15th of next
 * month at 12:00 UTC, so every period boundary is known.
 */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const real = new Date();
const noon15 = new Date(Date.UTC(real.getUTCFullYear(), real.getUTCMonth() + 1, 15, 12));
clock.advanceTo(noon15);
const DAY = 24 * 60 * 60 * 1000;
const pad = (n: number) => String(n).padStart(2, '0');
const month = `${noon15.getUTCFullYear()}-${pad(noon15.getUTCMonth() + 1)}`;
const lastDay = new Date(Date.UTC(noon15.getUTCFullYear(), noon15.getUTCMonth() + 1, 0)).getUTCDate();
const period = {
  period_start: `${month}-01`,
  period_end: `${month}-${lastDay}`,
  day_start: `${month}-15T00:00:00.000Z`,
};

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const billing = (team: Team) => call(team, 'GET', '/billing');

/** A team whose owner is a member (createTeam makes none), with a full_access key. */
async function teamWithOwner(name: string, plan: string): Promise<Team> {
  const team = await app.runtime.services.teams.create({ name, planCode: plan, ownerEmail: `owner@${name}.test` });
  const key = await app.runtime.services.apiKeys.create(team.id, { name: 'k', permission: 'full_access' });
  return { teamId: team.id, token: key.token };
}

/** What every team gets on this appliance, whatever its plan. */
const noProvider = {
  subscription: {
    status: 'none',
    current_period_start: null,
    current_period_end: null,
    invoicing: null,
    latest_invoice_status: null,
    trial_ends_at: null,
  },
  pay_as_you_go: { enabled: false },
  payment_method: { present: false, brand: null, last4: null },
  addons: [],
  pending_change: null,
  payment_state: null,
  checkout_available: false,
  storage_addon_purchase: 'unavailable',
};

/** Sets an email's created_at, as if it had been sent then. */
const sentAt = (emailId: string, at: Date) =>
  app.runtime.db.knex('emails').where({ id: emailId }).update({ created_at: at });

t.test('a free team: the whole object, nothing used yet', async (t) => {
  const team = await teamWithOwner('free-shape', 'free');
  const res = await billing(team);
  t.equal(res.status, 200);
  t.same(res.body, {
    object: 'billing',
    plan: { code: 'free', name: 'Free', monthly_price_cents: 0, included_emails: 3000, overage_per_1000_cents: 0 },
    effective_plan_code: 'free',
    usage: {
      ...period,
      emails: 0,
      included_emails: 3000,
      emails_today: 0,
      daily_limit: 100,
      monthly_limit: 3000,
      marketing_emails: 0,
      marketing_included_emails: 3000,
      marketing_contacts_included: 1000,
      marketing_addon_code: null,
    },
    ...noProvider,
    paid_plan: false,
    inbox_seats: { code: 'inbox_seat', quantity: 0, included: 1 },
    dedicated_ip: { recommended_min_daily: 500, avg_daily_sends_30d: 0 },
  });
  t.ok(billingSchema.safeParse(res.body).success, 'matches the documented schema (strict)');
  t.same((await request(app.url, '/api/v1/billing', { token: team.token })).body, res.body, 'same on /api/v1');
});

t.test('a paid team: transactional and broadcast emails, by day, month and 30 days', async (t) => {
  const team = await teamWithOwner('pro-usage', 'pro');
  const domain = 'pro-usage.test';
  await markedVerifiedDomain(app, team.teamId, domain);
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const sent = await call(team, 'POST', '/emails', {
      from: `Pro <hello@${domain}>`,
      to: [`r${i}@example.net`],
      subject: `Hello ${i}`,
      text: 'Hi',
    });
    t.equal(sent.status, 200, `email ${i} accepted`);
    ids.push(sent.body.id);
  }
  // One stays today; one was yesterday (this month); one 20 days ago (last month, within 30
  // days); one 31 days ago (outside every window).
  const now = clock.now().getTime();
  await sentAt(ids[1]!, new Date(now - DAY));
  await sentAt(ids[2]!, new Date(now - 20 * DAY));
  await sentAt(ids[3]!, new Date(now - 31 * DAY));

  // A broadcast to two subscribed contacts: two emails on the marketing meter.
  const postal = { line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' };
  t.equal((await call(team, 'PATCH', '/team', { sender_name: 'Pro', postal_address: postal })).status, 200);
  for (const email of ['ada@dest.test', 'bob@dest.test'])
    t.equal((await call(team, 'POST', '/contacts', { email })).status, 201);
  const segment = (
    await call(team, 'POST', '/segments', {
      name: 'Everyone',
      filter: { all: [{ field: 'email', op: 'contains', value: '@' }] },
    })
  ).body.id;
  const broadcast = await call(team, 'POST', '/broadcasts', {
    segment_id: segment,
    from: `Pro <news@${domain}>`,
    subject: 'News',
    text: 'News',
    send: true,
  });
  t.equal(broadcast.status, 201);
  t.equal((await app.runtime.services.broadcastFanOut.runDue()).emails, 2, 'two broadcast emails');

  const res = await billing(team);
  t.equal(res.status, 200);
  t.same(res.body, {
    object: 'billing',
    plan: { code: 'pro', name: 'Pro', monthly_price_cents: 0, included_emails: 50000, overage_per_1000_cents: 0 },
    effective_plan_code: 'pro',
    usage: {
      ...period,
      emails: 2,
      included_emails: 50000,
      emails_today: 1,
      daily_limit: null,
      monthly_limit: null,
      marketing_emails: 2,
      marketing_included_emails: 250000,
      marketing_contacts_included: 50000,
      marketing_addon_code: null,
    },
    ...noProvider,
    paid_plan: true,
    inbox_seats: { code: 'inbox_seat', quantity: 0, included: 1 },
    // Three transactional and two broadcast emails in the last 30 days: 5 / 30.
    dedicated_ip: { recommended_min_daily: 500, avg_daily_sends_30d: 0.17 },
  });
  t.ok(billingSchema.safeParse(res.body).success, 'matches the documented schema (strict)');

  // Another team's emails never count.
  const other = await teamWithOwner('pro-other', 'pro');
  t.match((await billing(other)).body, {
    usage: { emails: 0, emails_today: 0, marketing_emails: 0 },
    dedicated_ip: { avg_daily_sends_30d: 0 },
  });
});

t.test('usage agrees with the quotas: the limits are reached exactly when sends are refused', async (t) => {
  lowerPlanLimits(t, 'free', { daily_cap: 2, included_emails: 3 });
  const team = await app.createTeam('quota', 'free');
  const domain = 'quota.test';
  await markedVerifiedDomain(app, team.teamId, domain);
  const send = () =>
    call(team, 'POST', '/emails', { from: `Q <q@${domain}>`, to: 'x@example.net', subject: 'S', text: 'T' });

  const first = (await send()).body.id;
  const second = (await send()).body.id;
  t.ok(first && second, 'two accepted');
  t.match((await billing(team)).body.usage, { emails_today: 2, daily_limit: 2, emails: 2, monthly_limit: 3 });
  errorShape(t, await send(), 429, 'daily_quota_exceeded');
  t.match((await billing(team)).body.usage, { emails_today: 2, emails: 2 }, 'a refused send is not counted');

  // One of today's two counted yesterday instead: room today, and one email left this month.
  await sentAt(first, new Date(clock.now().getTime() - DAY));
  t.match((await billing(team)).body.usage, { emails_today: 1, emails: 2 });
  t.equal((await send()).status, 200);
  t.match((await billing(team)).body.usage, { emails_today: 2, emails: 3, monthly_limit: 3 });
  // Room today again, none this month: the monthly quota refuses.
  await sentAt(second, new Date(clock.now().getTime() - DAY));
  t.match((await billing(team)).body.usage, { emails_today: 1, emails: 3 });
  errorShape(t, await send(), 429, 'monthly_quota_exceeded');
});

t.test('credentials: full_access only; OAuth scope billing:read', async (t) => {
  const team = await app.createTeam('keys', 'free');
  const sending = await app.runtime.services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });
  errorShape(t, await request(app.url, '/billing', { token: sending.token }), 401, 'restricted_api_key');
  errorShape(t, await request(app.url, '/billing'), 401, 'missing_api_key');
  errorShape(t, await request(app.url, '/billing', { method: 'POST', token: team.token }), 405, 'method_not_allowed');

  // An OAuth token arrives as a key with scopes (scopes.test.ts does the same).
  const { apiKeys } = app.runtime.services;
  const authenticate = apiKeys.authenticate.bind(apiKeys);
  let scopes: string[] = [];
  apiKeys.authenticate = async (bearer: string): Promise<Caller> => ({ ...(await authenticate(bearer)), scopes });
  t.teardown(() => void (apiKeys.authenticate = authenticate));
  scopes = ['billing:read'];
  t.equal((await billing(team)).status, 200, 'billing:read reaches GET /billing');
  scopes = ['team:read', 'team:write', 'emails:send'];
  const refused = errorShape(t, await billing(team), 403, 'invalid_permission');
  t.match(refused.message, /billing:read/);
});
