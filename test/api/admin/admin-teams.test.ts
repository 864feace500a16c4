import t from 'tap';
import { asBrowser, sessionInTeam } from '../../helpers/accounts.js';
import { declared } from '../../helpers/declared-schema.js';
import { errorShape, request, type RequestOptions } from '../../helpers/http.js';
import { createOperator } from '../../helpers/operator.js';
import { startTestApp } from '../../helpers/test-app.js';
import { newId } from '../../../lib/ids.js';

/** The admin API's teams: list, create, suspend/resume (keys refused, then back), plan and tier, usage; marketing. */
const app = await startTestApp();
t.teardown(() => app.close());
const operator = await createOperator(app, { email: 'olga@example.com' });
const origin = new URL(app.url).origin;
const admin = (path: string, options: RequestOptions = {}) =>
  request(app.url, path, { ...options, headers: { cookie: operator.cookie, origin, ...options.headers } });

t.test('GET /auth/session tells an operator (and whether MFA is still needed)', async (t) => {
  const res = await asBrowser(app, '/auth/session', operator.cookie);
  t.equal(res.status, 200);
  declared(t, 'GET', '/auth/session', res);
  t.equal(res.body.user.operator, true);
  t.equal(res.body.current_team, null, 'an operator has no current team');
  t.equal(res.body.operator_mfa_required, false);
  const fresh = await createOperator(app, { mfa: false });
  const pending = await asBrowser(app, '/auth/session', fresh.cookie);
  t.equal(pending.body.operator_mfa_required, true);
  const team = await app.createTeam('Someone');
  const member = await sessionInTeam(app, 'member@example.com', team.teamId, 'member');
  const person = await asBrowser(app, '/auth/session', member);
  t.equal(person.body.user.operator, false);
  t.equal(person.body.operator_mfa_required, false);
  // Team routes refuse the operator as any session without a team.
  errorShape(t, await asBrowser(app, '/domains', operator.cookie), 403, 'invalid_permission');
});

t.test('create, list (paged), get', async (t) => {
  const created = await admin('/admin/teams', { method: 'POST', body: { name: 'Acme', plan: 'pro' } });
  t.equal(created.status, 201);
  declared(t, 'POST', '/admin/teams', created);
  t.match(created.body.team, { object: 'team', name: 'Acme', plan: { code: 'pro' }, tier: 0, suspended: false });
  const key = created.body.api_key.token as string;
  t.equal((await request(app.url, '/domains', { token: key })).status, 200, 'its key works');

  for (const name of ['B1', 'B2', 'B3']) await admin('/admin/teams', { method: 'POST', body: { name } });
  const first = await admin('/admin/teams?limit=2');
  t.equal(first.status, 200);
  declared(t, 'GET', '/admin/teams', first);
  t.equal(first.body.data.length, 2);
  t.equal(first.body.has_more, true);
  const seen: string[] = first.body.data.map((team: { id: string }) => team.id);
  let after = seen.at(-1)!;
  for (;;) {
    const page = await admin(`/admin/teams?limit=2&after=${after}`);
    seen.push(...page.body.data.map((team: { id: string }) => team.id));
    if (!page.body.has_more) break;
    after = seen.at(-1)!;
  }
  const total = (await app.runtime.services.teams.list()).length;
  t.equal(new Set(seen).size, total, 'the pages cover every team once');

  const one = await admin(`/admin/teams/${created.body.team.id}`);
  t.equal(one.status, 200);
  declared(t, 'GET', '/admin/teams/:team_id', one);
  t.equal(one.body.name, 'Acme');
  errorShape(t, await admin(`/admin/teams/${newId()}`), 404, 'not_found');
  errorShape(t, await admin('/admin/teams/nope'), 422, 'invalid_parameter');
  errorShape(
    t,
    await admin('/admin/teams', { method: 'POST', body: { name: 'X', plan: 'gold' } }),
    400,
    'validation_error',
  );
  errorShape(t, await admin('/admin/teams', { method: 'POST', body: {} }), 422, 'missing_required_field');
});

t.test('suspend refuses the team’s API keys; resume puts them back', async (t) => {
  const team = await app.createTeam('Suspended soon');
  t.equal((await request(app.url, '/domains', { token: team.token })).status, 200, 'the key works before');
  const suspended = await admin(`/admin/teams/${team.teamId}/suspend`, { method: 'POST' });
  t.equal(suspended.status, 200);
  declared(t, 'POST', '/admin/teams/:team_id/suspend', suspended);
  t.match(suspended.body, { id: team.teamId, risk_state: 'suspended', suspended: true });
  errorShape(t, await request(app.url, '/domains', { token: team.token }), 403, 'suspended_api_key');
  const resumed = await admin(`/admin/teams/${team.teamId}/resume`, { method: 'POST' });
  t.equal(resumed.status, 200);
  t.match(resumed.body, { risk_state: 'normal', suspended: false });
  t.equal((await request(app.url, '/domains', { token: team.token })).status, 200, 'the key works again');
  errorShape(t, await admin(`/admin/teams/${newId()}/suspend`, { method: 'POST' }), 404, 'not_found');
  errorShape(t, await admin(`/admin/teams/${newId()}/resume`, { method: 'POST' }), 404, 'not_found');
});

t.test('PATCH plan and tier; usage', async (t) => {
  const team = await app.createTeam('Growing');
  const patched = await admin(`/admin/teams/${team.teamId}`, { method: 'PATCH', body: { plan: 'scale', tier: 2 } });
  t.equal(patched.status, 200);
  declared(t, 'PATCH', '/admin/teams/:team_id', patched);
  t.match(patched.body, { plan: { code: 'scale' }, tier: 2 });
  t.equal((await app.runtime.services.teams.get(team.teamId)).sendingTier, 2, 'stored');
  errorShape(
    t,
    await admin(`/admin/teams/${team.teamId}`, { method: 'PATCH', body: { plan: 'gold' } }),
    400,
    'validation_error',
  );
  errorShape(t, await admin(`/admin/teams/${team.teamId}`, { method: 'PATCH', body: {} }), 400, 'validation_error');
  errorShape(
    t,
    await admin(`/admin/teams/${team.teamId}`, { method: 'PATCH', body: { tier: 9 } }),
    400,
    'validation_error',
  );
  errorShape(t, await admin(`/admin/teams/${newId()}`, { method: 'PATCH', body: { tier: 1 } }), 404, 'not_found');

  const usage = await admin(`/admin/teams/${team.teamId}/usage`);
  t.equal(usage.status, 200);
  declared(t, 'GET', '/admin/teams/:team_id/usage', usage);
  const own = await request(app.url, '/usage', { token: team.token });
  t.same(usage.body.emails, own.body.emails, "the team's own usage numbers");
  errorShape(t, await admin(`/admin/teams/${newId()}/usage`), 404, 'not_found');
});

t.test('marketing: pause and resume the platform-wide switch', async (t) => {
  const before = await admin('/admin/marketing');
  t.equal(before.status, 200);
  declared(t, 'GET', '/admin/marketing', before);
  t.match(before.body, { object: 'marketing', marketing: 'enabled', source: /configuration/ });
  const paused = await admin('/admin/marketing/pause', { method: 'POST' });
  t.match(paused.body, { marketing: 'paused', source: /pause\|resume/ });
  t.equal(await app.runtime.services.marketingEnabled(), false, 'broadcasts are refused');
  const resumed = await admin('/admin/marketing/resume', { method: 'POST' });
  t.match(resumed.body, { marketing: 'enabled' });
  t.equal(await app.runtime.services.marketingEnabled(), true);
});
