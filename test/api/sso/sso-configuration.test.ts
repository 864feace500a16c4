import t from 'tap';
import { asBrowser, sessionInTeam } from '../../helpers/accounts.js';
import { errorShape, request } from '../../helpers/http.js';
import { markedVerifiedDomain } from '../../helpers/verified-domain.js';
import { newId } from '../../../lib/ids.js';
import { startSsoWorld } from './sso-fixture.js';

/**
 * Setting up a team's single sign-on from the dashboard: PUT (and its refusals), the secret
 * never shown nor stored in clear, the test round trip, PATCH's order (test, then active, then
 * enforced), who reaches the routes (owners and admins with a session; never a key, never a
 * member), the team object's `sso`, the sign-in list and DELETE.
 */
const world = await startSsoWorld('Configure', 'configure.test');
t.teardown(() => world.close());
const { app, provider, owner } = world;
const { knex } = app.runtime.db;
const as = (cookie: string, path: string, method = 'GET', body?: unknown) =>
  asBrowser(app, path, cookie, { method, ...(body !== undefined ? { body } : {}) });
const settings = (extra: Record<string, unknown> = {}) => ({
  issuer: provider.issuer,
  client_id: provider.clientId,
  client_secret: provider.clientSecret,
  domains: ['configure.test'],
  ...extra,
});
const configurationKeys = [
  'activated_at',
  'active',
  'client_id',
  'created_at',
  'domains',
  'enforced',
  'issuer',
  'last_error',
  'last_sign_in_at',
  'object',
  'redirect_uri',
  'status',
  'tested_at',
  'updated_at',
];

t.test('nothing configured: GET is 404, the team object says null', async (t) => {
  errorShape(t, await as(owner.cookie, '/team/sso'), 404, 'not_found');
  t.equal((await request(app.url, '/team', { token: world.team.token })).body.sso, null);
});

t.test('PUT refusals: missing secret, unverified domain, bad issuer, taken domain', async (t) => {
  const noSecret = errorShape(
    t,
    await as(owner.cookie, '/team/sso', 'PUT', settings({ client_secret: undefined })),
    422,
    'validation_error',
  );
  t.same(noSecret.errors, [{ path: 'client_secret', message: 'is required' }]);

  const unverified = errorShape(
    t,
    await as(owner.cookie, '/team/sso', 'PUT', settings({ domains: ['configure.test', 'elsewhere.test'] })),
    422,
    'validation_error',
  );
  t.same(unverified.details, { reason: 'domain_unverified', domains: ['elsewhere.test'] });
  t.match(unverified.errors, [{ path: 'domains', message: /elsewhere\.test/ }]);

  for (const issuer of ['not a url', 'http://idp.example.com', 'https://idp.example.com/?tenant=1']) {
    const bad = errorShape(
      t,
      await as(owner.cookie, '/team/sso', 'PUT', settings({ issuer })),
      422,
      'validation_error',
    );
    t.match(bad.errors, [{ path: 'issuer' }], issuer);
  }
  // A loopback issuer that answers no discovery document.
  const silent = errorShape(
    t,
    await as(owner.cookie, '/team/sso', 'PUT', settings({ issuer: 'http://127.0.0.1:1/' })),
    422,
    'validation_error',
  );
  t.same(silent.details, { reason: 'provider_error' });
  t.match(silent.errors, [{ path: 'issuer', message: /Discovery/ }]);

  // Another team covers shared.test. While it still has the domain verified, nobody else covers
  // it (the API never lets two teams verify one name: the row is copied here to get there).
  const other = await app.createTeam('Other', 'scale');
  const shared = await markedVerifiedDomain(app, other.teamId, 'shared.test');
  const otherOwner = await sessionInTeam(app, 'owner@shared.test', other.teamId, 'owner');
  t.equal((await as(otherOwner, '/team/sso', 'PUT', settings({ domains: ['shared.test'] }))).status, 200);
  const row = await knex('domains').where({ id: shared.id }).first();
  await knex('domains').insert({ ...row, id: newId(), team_id: world.team.teamId });
  const taken = errorShape(
    t,
    await as(owner.cookie, '/team/sso', 'PUT', settings({ domains: ['configure.test', 'shared.test'] })),
    422,
    'validation_error',
  );
  t.same(taken.details, { reason: 'domain_taken', domains: ['shared.test'] });
  t.match(taken.errors, [{ path: 'domains', message: 'shared.test is covered by another team' }]);
  await knex('domains').where({ team_id: world.team.teamId, name: 'shared.test' }).delete();
  errorShape(t, await as(owner.cookie, '/team/sso'), 404, 'not_found');
});

t.test('a domain claimed away from a team: its stale coverage passes to the new owner', async (t) => {
  const other = await knex('sso_domains').where({ domain: 'shared.test' }).first();
  await knex('domains').where({ team_id: other.team_id, name: 'shared.test' }).update({ team_id: world.team.teamId });
  app.runtime.services.lookupCache.invalidate();
  const res = await as(owner.cookie, '/team/sso', 'PUT', settings({ domains: ['configure.test', 'shared.test'] }));
  t.equal(res.status, 200, res.text);
  t.same(res.body.domains, ['configure.test', 'shared.test']);
  t.equal((await knex('sso_domains').where({ domain: 'shared.test' }).first()).team_id, world.team.teamId);
  await as(owner.cookie, '/team/sso', 'DELETE');
});

t.test('PUT configures; the secret is never answered, and sealed at rest', async (t) => {
  const res = await as(owner.cookie, '/team/sso', 'PUT', settings({ domains: ['Configure.TEST.'] }));
  t.equal(res.status, 200, res.text);
  t.same(Object.keys(res.body).sort(), [...configurationKeys, 'password_sessions_ended'].sort());
  t.match(res.body, {
    object: 'sso_configuration',
    status: 'configured',
    password_sessions_ended: 0,
    issuer: provider.issuer,
    client_id: provider.clientId,
    domains: ['configure.test'],
    enforced: false,
    redirect_uri: `${app.url}/auth/sso/callback`,
    tested_at: null,
    activated_at: null,
    last_error: null,
  });
  const got = await as(owner.cookie, '/team/sso');
  t.equal(got.status, 200);
  t.notOk(got.text.includes(provider.clientSecret), 'GET never shows the secret');
  t.notOk(res.text.includes(provider.clientSecret), 'PUT never shows the secret');
  const row = await knex('sso_configurations').where({ team_id: world.team.teamId }).first();
  t.notOk(String(row.client_secret_sealed).includes(provider.clientSecret), 'stored sealed');
  t.match(row.client_secret_sealed, /^v1:/);
  const team = await request(app.url, '/team', { token: world.team.token });
  t.same(team.body.sso, {
    status: 'configured',
    issuer: provider.issuer,
    client_id: provider.clientId,
    enforced: false,
    domains: ['configure.test'],
  });
});

t.test('PATCH order: active needs a test, enforced needs active', async (t) => {
  const notTested = errorShape(
    t,
    await as(owner.cookie, '/team/sso', 'PATCH', { active: true }),
    422,
    'validation_error',
  );
  t.same(notTested.errors, [{ path: 'active', message: 'needs a successful test' }]);
  const notActive = errorShape(
    t,
    await as(owner.cookie, '/team/sso', 'PATCH', { enforced: true }),
    422,
    'validation_error',
  );
  t.same(notActive.errors, [{ path: 'enforced', message: 'needs active single sign-on' }]);
  errorShape(t, await as(owner.cookie, '/team/sso', 'PATCH', {}), 400, 'validation_error');
});

t.test('a failed test round trip: back to the settings page with the reason', async (t) => {
  world.person('unverified-admin', 'owner@configure.test', { verified: false });
  const started = await as(owner.cookie, '/team/sso/test', 'POST');
  t.equal(started.status, 200, started.text);
  t.same(Object.keys(started.body).sort(), ['authorization_url', 'object']);
  const back = await world.callback(await provider.signIn(started.body.authorization_url, 'unverified-admin'));
  t.equal(back.status, 302);
  t.equal(back.headers.get('location'), `${app.url}/dashboard/team/sso?sso_test=failed&reason=email_unverified`);
  t.notOk(back.headers.get('set-cookie'), 'a test signs nobody in');
  t.equal((await as(owner.cookie, '/team/sso')).body.status, 'configured');
});

t.test('test round trip -> tested; active; enforced; the team object follows', async (t) => {
  world.person('owner-idp', 'owner@configure.test');
  const started = await as(owner.cookie, '/team/sso/test', 'POST');
  const url = new URL(started.body.authorization_url);
  t.equal(url.origin, provider.issuer);
  t.match(Object.fromEntries(url.searchParams), {
    client_id: provider.clientId,
    response_type: 'code',
    scope: 'openid email profile',
    code_challenge_method: 'S256',
    redirect_uri: `${app.url}/auth/sso/callback`,
  });
  t.ok(url.searchParams.get('state') && url.searchParams.get('nonce') && url.searchParams.get('code_challenge'));
  const back = await world.callback(await provider.signIn(url.href, 'owner-idp'));
  t.equal(back.headers.get('location'), `${app.url}/dashboard/team/sso?sso_test=ok`);
  const tested = await as(owner.cookie, '/team/sso');
  t.match(tested.body, { status: 'tested', tested_at: String });

  const active = await as(owner.cookie, '/team/sso', 'PATCH', { active: true });
  t.match(active.body, { status: 'active', enforced: false, activated_at: String });
  const enforced = await as(owner.cookie, '/team/sso', 'PATCH', { enforced: true });
  t.match(enforced.body, { status: 'active', enforced: true });
  t.match((await request(app.url, '/team', { token: world.team.token })).body.sso, {
    status: 'active',
    enforced: true,
  });

  // Changing only the domains keeps it in use; a new client id needs a new test.
  const same = await as(owner.cookie, '/team/sso', 'PUT', settings({ client_secret: undefined }));
  t.match(same.body, { status: 'active', enforced: true });
  const changed = await as(
    owner.cookie,
    '/team/sso',
    'PUT',
    settings({ client_id: 'another-client', client_secret: undefined }),
  );
  t.match(changed.body, { status: 'configured', enforced: false, tested_at: null, activated_at: null });
  await as(owner.cookie, '/team/sso', 'PUT', settings());
});

t.test('sign-ins list: the test round trips, newest first', async (t) => {
  const list = await as(owner.cookie, '/team/sso/sign-ins?limit=2');
  t.equal(list.status, 200, list.text);
  t.match(list.body, { object: 'list', has_more: false });
  t.same(
    list.body.data.map((entry: { outcome: string; error: string | null }) => [entry.outcome, entry.error]),
    [
      ['tested', null],
      ['failed', 'email_unverified'],
    ],
  );
  t.same(Object.keys(list.body.data[0]).sort(), [
    'created_at',
    'email',
    'error',
    'id',
    'name',
    'object',
    'outcome',
    'user_id',
  ]);
  errorShape(t, await as(owner.cookie, '/team/sso/sign-ins?limit=0'), 422, 'invalid_parameter');
});

t.test('who reaches the routes: never a key, never a member, a session of another team sees its own', async (t) => {
  const calls: Array<[string, string, unknown?]> = [
    ['GET', '/team/sso'],
    ['PUT', '/team/sso', settings()],
    ['PATCH', '/team/sso', { active: false }],
    ['POST', '/team/sso/test'],
    ['DELETE', '/team/sso'],
    ['GET', '/team/sso/sign-ins'],
  ];
  const member = await sessionInTeam(app, 'member@configure.test', world.team.teamId, 'member');
  for (const [method, path, body] of calls) {
    const key = await request(app.url, path, { method, token: world.team.token, ...(body ? { body } : {}) });
    errorShape(t, key, 403, 'invalid_permission');
    errorShape(t, await as(member, path, method, body), 403, 'invalid_permission');
  }
  const stranger = await app.createTeam('Stranger', 'scale');
  const strangerOwner = await sessionInTeam(app, 'owner@stranger.test', stranger.teamId, 'owner');
  errorShape(t, await as(strangerOwner, '/team/sso'), 404, 'not_found');
  t.same((await as(strangerOwner, '/team/sso/sign-ins')).body.data, []);
  // An admin manages it like an owner.
  const admin = await sessionInTeam(app, 'admin@configure.test', world.team.teamId, 'admin');
  t.equal((await as(admin, '/team/sso')).status, 200);
});

t.test('a plan without single sign-on: PUT is refused with 403 validation_error', async (t) => {
  const pro = await app.createTeam('On pro', 'pro');
  await markedVerifiedDomain(app, pro.teamId, 'pro.test');
  const proOwner = await sessionInTeam(app, 'owner@pro.test', pro.teamId, 'owner');
  const refused = errorShape(
    t,
    await as(proOwner, '/team/sso', 'PUT', settings({ domains: ['pro.test'] })),
    403,
    'validation_error',
  );
  t.match(refused.message, /scale and unlimited/);
  t.same(refused.details, { next: 'upgrade' });
});

t.test('DELETE removes it (and its domains)', async (t) => {
  const res = await as(owner.cookie, '/team/sso', 'DELETE');
  t.equal(res.status, 200);
  t.same(res.body, { object: 'sso_configuration', deleted: true });
  errorShape(t, await as(owner.cookie, '/team/sso'), 404, 'not_found');
  t.equal((await knex('sso_domains').where({ team_id: world.team.teamId })).length, 0);
  t.equal((await request(app.url, '/team', { token: world.team.token })).body.sso, null);
});
