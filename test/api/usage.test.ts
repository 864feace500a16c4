import { Resend } from 'resend';
import t from 'tap';
import { usageSchema } from '../../api/routes/usage.routes.js';
import type { Caller } from '../../core/platform/auth/caller.js';
import { findPlan } from '../../core/platform/plans/plan.catalog.js';
import { movableClock } from '../helpers/clock.js';
import { errorShape, request } from '../helpers/http.js';
import { receiveMessage, receivingDomain } from '../helpers/received-mail.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';
import { lowerPlanLimits } from '../helpers/plan-limits.js';

/**
 * GET /usage with the `resend` SDK as the client: its shape, what each number counts, and that
 * it never disagrees with GET /billing or the quotas themselves. The clock is at the 15th of next
 * month, 12:00 UTC, so every period boundary is known.
 */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const real = new Date();
const noon15 = new Date(Date.UTC(real.getUTCFullYear(), real.getUTCMonth() + 1, 15, 12));
clock.advanceTo(noon15);
const DAY = 24 * 60 * 60 * 1000;
const nextMonth = new Date(Date.UTC(noon15.getUTCFullYear(), noon15.getUTCMonth() + 1, 1)).toISOString();
const tomorrow = new Date(Date.UTC(noon15.getUTCFullYear(), noon15.getUTCMonth(), 16)).toISOString();
const { services } = app.runtime;

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const sdk = (token: string) => new Resend(token, { baseUrl: `${app.url}/api/v1` } as never);

t.test('the SDK’s usage.get(): a fresh free team, every field', async (t) => {
  const team = await app.createTeam('fresh', 'free');
  const { data, error } = await sdk(team.token).usage.get();
  t.equal(error, null);
  const free = findPlan('free')!.limits;
  // generated_at: the SDK's newer types and Resend's reference name it; 6.38's do not.
  const { generated_at: generatedAt, ...rest } = data as typeof data & { generated_at: string };
  t.same(rest, {
    object: 'usage',
    emails: {
      daily: { used: 0, limit: free.daily_cap, sent: 0, received: 0, resets_at: tomorrow },
      monthly: { used: 0, limit: free.included_emails, sent: 0, received: 0, resets_at: nextMonth },
    },
    contacts: { used: 0, limit: free.contact_limit },
    segments: { used: 0, limit: null },
    broadcasts: { used: 0, limit: null },
    ai_credits: { used: 0, limit: free.ai_credits_monthly, next_increase_at: nextMonth },
    automation_runs: { used: 0, limit: free.automation_runs_monthly, resets_at: nextMonth },
    domains: { used: 0, limit: free.domain_limit },
    rate_limit: { limit: app.runtime.config.api.rateLimitPerSecond, duration: '1000ms' },
  });
  t.ok(Math.abs(Date.parse(generatedAt) - clock.now().getTime()) < 60_000, 'generated_at is the appliance’s now');
  t.ok(usageSchema.safeParse(data).success, 'matches the documented schema (strict)');
  const plain = await request(app.url, '/usage', { token: team.token });
  t.equal(plain.status, 200, 'also on the unversioned base');
  t.same(Object.keys(plain.body).sort(), Object.keys(data!).sort());
});

t.test('contacts, segments, broadcasts and domains: the team’s own, against the plan', async (t) => {
  const team = await app.createTeam('counted', 'pro');
  await markedVerifiedDomain(app, team.teamId, 'counted.test');
  for (const email of ['a@dest.test', 'b@dest.test'])
    t.equal((await call(team, 'POST', '/contacts', { email })).status, 201);
  const filter = { all: [{ field: 'email', op: 'contains', value: '@' }] };
  const segment = await call(team, 'POST', '/segments', { name: 'All', filter });
  const gone = await call(team, 'POST', '/segments', { name: 'Gone', filter });
  t.equal((await call(team, 'DELETE', `/segments/${gone.body.id}`)).status, 200);
  const draft = await call(team, 'POST', '/broadcasts', {
    segment_id: segment.body.id,
    from: 'C <news@counted.test>',
    subject: 'Draft',
    text: 'x',
  });
  t.equal(draft.status, 201);
  const pro = findPlan('pro')!.limits;
  const { data } = await sdk(team.token).usage.get();
  t.match(data, {
    contacts: { used: 2, limit: pro.contact_limit },
    segments: { used: 1, limit: null },
    broadcasts: { used: 1, limit: null },
    domains: { used: 1, limit: pro.domain_limit },
    emails: { daily: { limit: null }, monthly: { limit: pro.included_emails } },
  });
  // Another team's resources never count.
  t.match((await sdk((await app.createTeam('empty', 'pro')).token).usage.get()).data, {
    contacts: { used: 0 },
    segments: { used: 0 },
    broadcasts: { used: 0 },
    domains: { used: 0 },
  });
});

t.test('GET /usage, GET /billing and the quotas agree: sent, received, refused, reset', async (t) => {
  lowerPlanLimits(t, 'free', { daily_cap: 3, included_emails: 5 });
  const team = await app.createTeam('agree', 'free');
  // The free plan has one domain: it sends and receives.
  const inbox = await receivingDomain(app, team.teamId, 'agree.test');
  await services.teams.setTier(team.teamId, 2);
  const send = () =>
    call(team, 'POST', '/emails', { from: 'A <a@agree.test>', to: 'x@example.net', subject: 'S', text: 'T' });
  const resend = sdk(team.token);

  /** The three views at once: GET /usage (SDK), GET /billing, and the quota's own count. */
  const views = async () => {
    const usage = (await resend.usage.get()).data!;
    const billing = (await call(team, 'GET', '/billing')).body;
    const since = new Date(Date.UTC(clock.now().getUTCFullYear(), clock.now().getUTCMonth(), clock.now().getUTCDate()));
    const quotaToday = await services.countEmails(team.teamId, since, 'transactional');
    t.equal(usage.emails.daily.used, billing.usage.emails_today, 'daily: usage = billing');
    t.equal(usage.emails.daily.used, quotaToday, 'daily: usage = the quota’s count');
    t.equal(usage.emails.daily.limit, billing.usage.daily_limit, 'daily limits agree');
    t.equal(usage.emails.monthly.used, billing.usage.emails, 'monthly: usage = billing');
    t.equal(usage.emails.monthly.limit, billing.usage.included_emails, 'monthly limits agree');
    t.equal(usage.emails.monthly.limit, billing.usage.monthly_limit, 'a hard cap on the free plan');
    return usage;
  };

  t.equal((await send()).status, 200);
  t.equal((await send()).status, 200);
  const raw = `From: p@peer.example\r\nTo: hi@${inbox}\r\nSubject: In\r\nMessage-ID: <in@peer.example>\r\n\r\nHello\r\n`;
  t.equal((await receiveMessage(app, { from: 'p@peer.example', to: [`hi@${inbox}`], raw })).received.length, 1);
  // An AI credit as the AI helpers spend one: a ledger record in the answer's transaction.
  await services.usage.record(app.runtime.db.knex, {
    teamId: team.teamId,
    category: 'ai_credits',
    quantity: 1,
    at: clock.now(),
    sourceId: 'ai-request',
  });
  let usage = await views();
  t.match(usage.emails, {
    daily: { used: 2, sent: 2, received: 1, limit: 3 },
    monthly: { used: 2, sent: 2, received: 1, limit: 5 },
  });
  t.match(usage.ai_credits, { used: 1, limit: findPlan('free')!.limits.ai_credits_monthly });

  // Send until the daily quota refuses: it refuses exactly when used reaches the limit.
  t.equal((await send()).status, 200);
  usage = await views();
  t.equal(usage.emails.daily.used, usage.emails.daily.limit, 'used = limit');
  errorShape(t, await send(), 429, 'daily_quota_exceeded');
  usage = await views();
  t.match(usage.emails.daily, { used: 3, sent: 3, received: 1 }, 'the refusal is not counted');

  // The next day the daily count restarts; the month's goes on until the monthly quota refuses.
  clock.advanceTo(clock.now().getTime() + DAY);
  usage = await views();
  t.match(usage.emails, { daily: { used: 0, received: 0 }, monthly: { used: 3, received: 1 } });
  t.equal((await send()).status, 200);
  t.equal((await send()).status, 200);
  usage = await views();
  t.match(usage.emails.monthly, { used: 5, limit: 5 });
  errorShape(t, await send(), 429, 'monthly_quota_exceeded');
  t.match((await views()).emails, { daily: { used: 2 }, monthly: { used: 5 } });
});

t.test('credentials: full_access only; OAuth scope billing:read', async (t) => {
  const team = await app.createTeam('keys', 'free');
  const sending = await services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });
  errorShape(t, await request(app.url, '/usage', { token: sending.token }), 401, 'restricted_api_key');
  errorShape(t, await request(app.url, '/api/v1/usage'), 401, 'missing_api_key');
  errorShape(t, await request(app.url, '/usage', { token: 're_not_a_key' }), 401, 'invalid_api_key');
  errorShape(t, await request(app.url, '/usage', { method: 'POST', token: team.token }), 405, 'method_not_allowed');
  const refused = await sdk(sending.token).usage.get();
  t.equal(refused.data, null);
  t.match(refused.error, { name: 'restricted_api_key', statusCode: 401 }, 'the SDK reports the refusal');

  // An OAuth token arrives as a key with scopes (billing.test.ts does the same).
  const { apiKeys } = services;
  const authenticate = apiKeys.authenticate.bind(apiKeys);
  let scopes: string[] = [];
  apiKeys.authenticate = async (bearer: string): Promise<Caller> => ({ ...(await authenticate(bearer)), scopes });
  t.teardown(() => void (apiKeys.authenticate = authenticate));
  scopes = ['billing:read'];
  t.equal((await request(app.url, '/usage', { token: team.token })).status, 200, 'billing:read reaches GET /usage');
  scopes = ['team:read', 'team:write', 'emails:send'];
  const denied = errorShape(t, await request(app.url, '/usage', { token: team.token }), 403, 'invalid_permission');
  t.match(denied.message, /billing:read/);
});

t.test('the OpenAPI document declares it', async (t) => {
  const doc = (await request(app.url, '/openapi.json')).body;
  const operation = doc.paths['/usage']?.get;
  t.match(operation, { operationId: 'getUsage', 'x-svc-permission': 'full_access', 'x-svc-scope': 'billing:read' });
});
