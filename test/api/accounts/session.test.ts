import t from 'tap';
import { asBrowser, login, sessionCookieOf, signup } from '../../helpers/accounts.js';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/** Signup, login, the session, logout: cookie, shapes, refusals (env test: signup is open). */
const app = await startTestApp();
t.teardown(() => app.close());

t.test('signup answers 201 Session with a session cookie and a team owned by the new user', async (t) => {
  const { response, cookie } = await signup(app, 'Ann@Example.com', 'correct horse', 'Ann');
  t.match(response.body, {
    object: 'session',
    user: { object: 'user', id: String, email: 'ann@example.com', name: 'Ann', email_verified_at: null },
    current_team: { object: 'team', id: String, name: "Ann's team", slug: String, risk_state: 'normal' },
  });
  t.same(Object.keys(response.body.current_team).sort(), ['created_at', 'id', 'name', 'object', 'risk_state', 'slug']);
  // `operator`: issue 35's operator console (false for everyone but the appliance's operators).
  t.same(Object.keys(response.body.user).sort(), [
    'created_at',
    'email',
    'email_verified_at',
    'id',
    'name',
    'object',
    'operator',
  ]);
  t.equal(response.body.user.operator, false);
  t.equal(response.body.operator_mfa_required, false);
  const setCookie = response.headers.get('set-cookie')!;
  t.match(setCookie, /^mailroom_session=[A-Za-z0-9_-]{43}; /);
  t.match(setCookie, /; Max-Age=2592000(;|$)/, '30 days');
  t.match(setCookie, /; Path=\/(;|$)/);
  t.match(setCookie, /; HttpOnly(;|$)/);
  t.match(setCookie, /; SameSite=Lax(;|$)/);
  t.notMatch(setCookie, /Secure/, 'not Secure outside production');

  const session = await asBrowser(app, '/auth/session', cookie);
  t.equal(session.status, 200);
  t.same(session.body, response.body, 'GET /auth/session answers the same session');
  const members = await app.runtime.db.knex('team_members').where({ team_id: response.body.current_team.id });
  t.match(members, [{ email: 'ann@example.com', role: 'owner', user_id: response.body.user.id }]);
  const stored = await app.runtime.db.knex('user_sessions').where({ user_id: response.body.user.id }).first();
  t.equal(stored.token_hash.length, 64, 'only the SHA-256 of the token is stored');
  t.notOk(cookie.includes(stored.token_hash));
  const user = await app.runtime.db.knex('users').where({ id: response.body.user.id }).first();
  t.match(user.password_hash, /^scrypt\$32768\$8\$1\$/, 'scrypt hash with its parameters');
});

t.test('signup refusals: the address taken (any case), and bodies outside the limits', async (t) => {
  await signup(app, 'taken@example.com');
  const again = await asBrowser(app, '/auth/signup', null, {
    method: 'POST',
    body: { email: 'TAKEN@example.com', password: 'another one' },
  });
  t.equal(errorShape(t, again, 422, 'validation_error').errors?.[0]?.path, 'email');
  for (const body of [
    { email: 'a@b', password: 'long enough' },
    { email: 'short@example.com', password: '12345' },
    { email: 'n@example.com', password: 'long enough', name: 'x'.repeat(201) },
    { email: 'n@example.com', password: 'x'.repeat(4097) },
    { email: 'n@example.com', password: 'long enough', extra: 1 },
  ]) {
    errorShape(t, await asBrowser(app, '/auth/signup', null, { method: 'POST', body }), 400, 'validation_error');
  }
});

t.test('login: a new session each time; wrong password and unknown address get the same answer', async (t) => {
  const { cookie: first } = await signup(app, 'bob@example.com', 'bob password');
  const ok = await login(app, 'BOB@example.com', 'bob password');
  t.equal(ok.status, 200);
  t.match(ok.body, { object: 'session', user: { email: 'bob@example.com' }, current_team: { object: 'team' } });
  const second = sessionCookieOf(ok);
  t.not(second, first, 'rotation: login issues a new token');
  t.equal((await asBrowser(app, '/auth/session', first)).status, 200, 'the other session lives on');

  const wrong = await login(app, 'bob@example.com', 'not it');
  const unknown = await login(app, 'nobody@example.com', 'not it');
  errorShape(t, wrong, 401, 'invalid_api_key');
  t.same(unknown.body, wrong.body, 'byte-identical bodies');
  t.equal(unknown.status, wrong.status);
  t.notOk(wrong.headers.get('set-cookie'), 'no cookie on a refusal');
  errorShape(t, await login(app, 'bob@example.com', ''), 400, 'validation_error');
});

t.test('session routes without a usable session: 401 missing_api_key / invalid_api_key', async (t) => {
  errorShape(t, await request(app.url, '/auth/session'), 401, 'missing_api_key');
  errorShape(t, await asBrowser(app, '/auth/session', 'mailroom_session=forged'), 401, 'invalid_api_key');
  errorShape(t, await asBrowser(app, '/auth/session', 'other=1'), 401, 'missing_api_key');
});

t.test('API keys never reach session routes; the cookie reaches key routes as its person', async (t) => {
  const team = await app.createTeam('Keyed');
  const { cookie } = await signup(app, 'keyed@example.com');
  const withKey = await request(app.url, '/auth/session', { token: team.token, headers: { cookie } });
  errorShape(t, withKey, 403, 'invalid_permission');
  errorShape(t, await request(app.url, '/auth/session', { token: 'svc_not_a_key' }), 403, 'invalid_permission');
  // The dashboard calls the key routes with its cookie (test/api/accounts/dashboard-calls.test.ts).
  const own = await asBrowser(app, '/team', cookie);
  t.equal(own.status, 200);
  t.not(own.body.id, team.teamId, 'in the session’s own team, not the key’s');
});

t.test('CSRF: cookie writes need the public Origin (or Referer); login refuses a foreign Origin', async (t) => {
  const { cookie } = await signup(app, 'csrf@example.com');
  const logout = (headers: Record<string, string>) =>
    request(app.url, '/auth/logout', { method: 'POST', body: {}, headers: { cookie, ...headers } });
  let refused = errorShape(t, await logout({ origin: 'https://evil.example' }), 403, 'invalid_permission');
  t.match(refused.message, /cross-site request refused/);
  errorShape(t, await logout({}), 403, 'invalid_permission');
  errorShape(t, await logout({ referer: 'https://evil.example/page' }), 403, 'invalid_permission');
  errorShape(t, await logout({ origin: 'null' }), 403, 'invalid_permission');
  t.equal((await asBrowser(app, '/auth/session', cookie)).status, 200, 'nothing was revoked');
  t.equal((await logout({ referer: `${app.url}/dashboard` })).status, 200, 'a same-origin Referer passes');

  refused = errorShape(
    t,
    await request(app.url, '/auth/login', {
      method: 'POST',
      body: { email: 'csrf@example.com', password: 'correct horse' },
      headers: { origin: 'https://evil.example' },
    }),
    403,
    'invalid_permission',
  );
  const noOrigin = await request(app.url, '/auth/login', {
    method: 'POST',
    body: { email: 'csrf@example.com', password: 'correct horse' },
  });
  t.equal(noOrigin.status, 200, 'a client without Origin (not a browser) may log in');
  errorShape(
    t,
    await request(app.url, '/auth/signup', {
      method: 'POST',
      body: { email: 'x@example.com', password: 'correct horse' },
      headers: { origin: 'https://evil.example' },
    }),
    403,
    'invalid_permission',
  );
});

t.test('logout revokes this session and clears the cookie; all: true revokes every session', async (t) => {
  const { cookie: a } = await signup(app, 'carol@example.com', 'carol password');
  const b = sessionCookieOf(await login(app, 'carol@example.com', 'carol password'));
  const c = sessionCookieOf(await login(app, 'carol@example.com', 'carol password'));
  const out = await asBrowser(app, '/auth/logout', a, { method: 'POST', body: {} });
  t.equal(out.status, 200);
  t.same(out.body, { object: 'session', revoked: true });
  t.match(out.headers.get('set-cookie'), /^mailroom_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax/);
  errorShape(t, await asBrowser(app, '/auth/session', a), 401, 'invalid_api_key');
  t.equal((await asBrowser(app, '/auth/session', b)).status, 200, 'other sessions live on');

  const all = await asBrowser(app, '/auth/logout', b, { method: 'POST', body: { all: true } });
  t.same(all.body, { object: 'session', revoked: true });
  errorShape(t, await asBrowser(app, '/auth/session', b), 401, 'invalid_api_key');
  errorShape(t, await asBrowser(app, '/auth/session', c), 401, 'invalid_api_key');
  errorShape(t, await asBrowser(app, '/auth/logout', c, { method: 'POST', body: {} }), 401, 'invalid_api_key');
  errorShape(
    t,
    await asBrowser(app, '/auth/logout', null, { method: 'POST', body: { all: 'yes' } }),
    401,
    'missing_api_key',
  );
});

t.test('the OpenAPI document lists the session routes with x-svc-permission and the cookie scheme', async (t) => {
  const doc = (await request(app.url, '/openapi.json')).body;
  t.equal(doc.paths['/auth/session'].get['x-svc-permission'], 'session');
  t.same(doc.paths['/auth/session'].get.security, [{ session: [] }]);
  t.equal(doc.paths['/auth/login'].post['x-svc-permission'], 'none');
  t.match(doc.components.securitySchemes.session, { type: 'apiKey', in: 'cookie', name: 'mailroom_session' });
});
