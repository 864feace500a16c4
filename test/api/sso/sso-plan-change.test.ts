import t from 'tap';
import { asBrowser, sessionInTeam } from '../../helpers/accounts.js';
import { startBillingApp } from '../../helpers/billing-app.js';
import { errorShape, request } from '../../helpers/http.js';
import { startOidcProvider } from '../../helpers/oidc-provider.js';
import { markedVerifiedDomain } from '../../helpers/verified-domain.js';

/**
 * The spec's rule: anything that would turn off single sign-on needs a signed-in admin and is
 * refused for keys. A plan change (POST /billing/plan, through the Stripe double) to a plan
 * without single sign-on while the team has it configured: 403 invalid_permission for the key,
 * allowed for the signed-in owner, after which single sign-on is out of use (configured, not
 * enforced) and password sign-in is back.
 */
const billing = await startBillingApp();
const { app } = billing;
const provider = await startOidcProvider({ redirectUri: `${app.url}/auth/sso/callback` });
t.teardown(async () => {
  await provider.close();
  await billing.close();
});
const team = await app.createTeam('Scaling', 'free');
await billing.subscribe(team.token, { plan_code: 'scale' });
await markedVerifiedDomain(app, team.teamId, 'scaling.test');
const owner = await sessionInTeam(app, 'owner@scaling.test', team.teamId, 'owner');
const as = (path: string, method = 'GET', body?: unknown, cookie = owner) =>
  asBrowser(app, path, cookie, { method, ...(body !== undefined ? { body } : {}) });
const planOf = async () => (await request(app.url, '/team', { token: team.token })).body.plan.code;

t.before(async () => {
  const put = await as('/team/sso', 'PUT', {
    issuer: provider.issuer,
    client_id: provider.clientId,
    client_secret: provider.clientSecret,
    domains: ['scaling.test'],
  });
  if (put.status !== 200) throw new Error(put.text);
  provider.accounts.set('owner-idp', { email: 'owner@scaling.test', emailVerified: true });
  const started = await as('/team/sso/test', 'POST');
  const back = await provider.signIn(started.body.authorization_url, 'owner-idp');
  await request(app.url, `${back.pathname}${back.search}`);
  const on = await as('/team/sso', 'PATCH', { active: true, enforced: true });
  if (on.body.status !== 'active') throw new Error(on.text);
});

t.test('a key may not drop single sign-on with a plan change', async (t) => {
  const error = errorShape(
    t,
    await request(app.url, '/billing/plan', { method: 'POST', token: team.token, body: { plan_code: 'pro' } }),
    403,
    'invalid_permission',
  );
  t.match(error.message, /single sign-on/);
  t.equal(await planOf(), 'scale', 'the plan stays');
  t.match((await as('/team/sso')).body, { status: 'active', enforced: true });
});

t.test('a member of the team may not either', async (t) => {
  const member = await sessionInTeam(app, 'member@scaling.test', team.teamId, 'member');
  const res = await as('/billing/plan', 'POST', { plan_code: 'pro' }, member);
  errorShape(t, res, 403, 'invalid_permission');
  t.equal(await planOf(), 'scale');
});

t.test('the signed-in owner may: single sign-on is then out of use', async (t) => {
  const res = await as('/billing/plan', 'POST', { plan_code: 'pro' });
  t.equal(res.status, 200, res.text);
  t.equal(await planOf(), 'pro');
  t.match((await as('/team/sso')).body, { status: 'configured', enforced: false, tested_at: null, activated_at: null });
  t.match((await request(app.url, '/team', { token: team.token })).body.sso, { status: 'configured', enforced: false });
  const found = await asBrowser(app, '/auth/sso/discover', null, {
    method: 'POST',
    body: { email: 'someone@scaling.test' },
  });
  t.same(found.body, { object: 'sso_discovery', sso: false });
  // Back on a plan with single sign-on, a key may change plans again while it stays included.
  const up = await request(app.url, '/billing/plan', {
    method: 'POST',
    token: team.token,
    body: { plan_code: 'scale' },
  });
  t.equal(up.status, 200, up.text);
  // On the record: the owner's plan change, and the appliance taking single sign-on out of use.
  const entries = (await request(app.url, '/audit-logs?limit=100', { token: team.token })).body.data as Array<{
    action: string;
    actor: { type: string; name: string | null };
    metadata: Record<string, unknown>;
  }>;
  const downgrade = entries.find((e) => e.action === 'billing.plan_changed' && e.metadata.plan_code === 'pro');
  t.match(
    downgrade,
    { actor: { type: 'user' }, metadata: { previous_plan_code: 'scale' } },
    'the owner changed the plan',
  );
  t.match(
    entries.find((e) => e.action === 'sso.deactivated'),
    { actor: { type: 'system' }, metadata: { reason: 'plan_change', plan_code: 'pro', was_enforced: true } },
    'single sign-on taken out of use by the plan change',
  );
});
