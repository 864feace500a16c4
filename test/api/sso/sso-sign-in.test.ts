import t, { type Test } from 'tap';
import { asBrowser, login, signup } from '../../helpers/accounts.js';
import { errorShape, request } from '../../helpers/http.js';
import { createOperator } from '../../helpers/operator.js';
import * as oauth from 'oauth4webapi';
import { discover as discoverOAuth, REDIRECT_URI, registerClient } from '../oauth/oauth-fixture.js';
import { OWNER_PASSWORD, sessionCookieOf, startSsoWorld } from './sso-fixture.js';

/**
 * Signing in through the team's provider (a real oidc-provider on loopback): discovery from the
 * sign-in page, the callback's session, just-in-time membership (member, or an invitation's
 * role), each refusal of the callback by its sso_error code, and enforcement of password sign-in
 * with the owners' recovery path.
 */
const world = await startSsoWorld('Acme', 'acme.test');
t.teardown(() => world.close());
const { app, provider, owner, team } = world;
const { knex } = app.runtime.db;
await world.configure();
const signInsOf = async () => (await asBrowser(app, '/team/sso/sign-ins', owner.cookie)).body.data;
const auditActions = async () =>
  (await knex('audit_log_entries').where({ team_id: team.teamId }).orderBy('id', 'asc')).map(
    (row: { action: string }) => row.action,
  );
const discover = (email: string) => asBrowser(app, '/auth/sso/discover', null, { method: 'POST', body: { email } });
/** The callback refused the sign-in: back to the login page with the code, no cookie. */
const refused = (t: Test, res: Awaited<ReturnType<typeof world.callback>>, code: string) => {
  t.equal(res.status, 302, 'a redirect');
  t.equal(res.headers.get('location'), `${app.url}/dashboard/login?sso_error=${code}`);
  t.notOk(res.headers.get('set-cookie'), 'no session');
};

t.test('discover: an address on a covered domain goes to the provider; others do not', async (t) => {
  const none = await discover('someone@elsewhere.test');
  t.equal(none.status, 200);
  t.same(none.body, { object: 'sso_discovery', sso: false });
  const found = await discover('Ann@ACME.test');
  t.equal(found.status, 200, found.text);
  t.same(Object.keys(found.body).sort(), ['authorization_url', 'enforced', 'object', 'sso']);
  t.match(found.body, { object: 'sso_discovery', sso: true, enforced: false });
  const url = new URL(found.body.authorization_url);
  t.equal(url.origin, provider.issuer);
  t.equal(url.searchParams.get('login_hint'), 'ann@acme.test');
  const bad = errorShape(t, await discover('not-an-address'), 400, 'validation_error');
  t.match(bad.errors, [{ path: 'email' }]);
});

t.test('first sign-in: a new user, joined as member, with a working session', async (t) => {
  world.person('ann-idp', 'ann@acme.test', { name: 'Ann Example' });
  const res = await world.signInAs('ann-idp', 'ann@acme.test');
  t.equal(res.status, 302, res.text);
  t.equal(res.headers.get('location'), `${app.url}/dashboard/`);
  const cookie = sessionCookieOf(res);
  const session = await asBrowser(app, '/auth/session', cookie);
  t.equal(session.status, 200);
  t.match(session.body, { user: { email: 'ann@acme.test', name: 'Ann Example' }, current_team: { id: team.teamId } });
  t.ok(session.body.user.email_verified_at, 'the provider verified the address');
  const members = await request(app.url, '/team/members', { token: team.token });
  t.match(
    members.body.data.find((m: { email: string }) => m.email === 'ann@acme.test'),
    { role: 'member' },
  );
  // No password was ever set: password sign-in is not a way in.
  errorShape(t, await login(app, 'ann@acme.test', 'anything at all'), 401, 'invalid_api_key');
  const again = await world.signInAs('ann-idp', 'ann@acme.test');
  t.equal(again.status, 302);
  t.match(await signInsOf(), [
    { object: 'sso_sign_in', outcome: 'signed_in', email: 'ann@acme.test', name: 'Ann Example', error: null },
    { outcome: 'joined', email: 'ann@acme.test', user_id: session.body.user.id },
  ]);
  const actions = await auditActions();
  t.ok(actions.includes('sso.member_joined') && actions.includes('sso.signed_in'), actions.join(', '));
  t.match((await asBrowser(app, '/team/sso', owner.cookie)).body, { status: 'active', last_sign_in_at: String });
});

t.test('an invitation says otherwise: its role, and the invitation is accepted', async (t) => {
  const invited = await asBrowser(app, '/auth/invitations', owner.cookie, {
    method: 'POST',
    body: { email: 'bob@acme.test', role: 'admin' },
  });
  t.equal(invited.status, 201, invited.text);
  world.person('bob-idp', 'bob@acme.test');
  const res = await world.signInAs('bob-idp', 'bob@acme.test');
  t.equal(res.status, 302);
  const members = await request(app.url, '/team/members', { token: team.token });
  t.match(
    members.body.data.find((m: { email: string }) => m.email === 'bob@acme.test'),
    { role: 'admin' },
  );
  const row = await knex('team_invitations').where({ id: invited.body.id }).first();
  t.ok(row.accepted_at, 'accepted');
});

t.test('an existing account (signed up elsewhere) joins as member and keeps its password', async (t) => {
  await signup(app, 'dana@acme.test', 'dana password');
  world.person('dana-idp', 'dana@acme.test');
  const res = await world.signInAs('dana-idp', 'dana@acme.test');
  t.equal(res.status, 302);
  const session = await asBrowser(app, '/auth/session', sessionCookieOf(res));
  t.equal(session.body.current_team.id, team.teamId, 'the session acts in the SSO team');
  t.equal((await login(app, 'dana@acme.test', 'dana password')).status, 200, 'not enforced: the password works');
});

t.test('a replayed or unknown state: state_invalid', async (t) => {
  world.person('erin-idp', 'erin@acme.test');
  const found = await discover('erin@acme.test');
  const back = await provider.signIn(found.body.authorization_url, 'erin-idp');
  t.equal((await world.callback(back)).status, 302);
  refused(t, await world.callback(back), 'state_invalid');
  refused(t, await request(app.url, '/auth/sso/callback?code=abc&state=made-up'), 'state_invalid');
  refused(t, await request(app.url, '/auth/sso/callback'), 'state_invalid');
});

t.test('the provider refuses (the person cancelled): provider_error', async (t) => {
  const found = await discover('erin@acme.test');
  const state = new URL(found.body.authorization_url).searchParams.get('state')!;
  const query = new URLSearchParams({ error: 'access_denied', state, iss: provider.issuer });
  refused(t, await request(app.url, `/auth/sso/callback?${query}`), 'provider_error');
});

t.test('ID tokens the appliance refuses: token_invalid, and the status turns failing', async (t) => {
  world.person('fay-idp', 'fay@acme.test');
  const cases = [
    ['another audience', { aud: 'some-other-client' }],
    ['expired', { expiredSecondsAgo: 600 }],
    ['signed by a key the provider does not publish', { foreignKey: true }],
  ] as const;
  for (const [what, tamper] of cases) {
    provider.tamper = tamper;
    refused(t, await world.signInAs('fay-idp', 'fay@acme.test'), 'token_invalid');
    t.comment(what);
  }
  provider.tamper = null;
  const config = await asBrowser(app, '/team/sso', owner.cookie);
  t.match(config.body, { status: 'failing', last_error: /^token_invalid: / });
  t.equal(await knex('users').where({ email: 'fay@acme.test' }).first(), undefined, 'nobody was created');
  // A good sign-in clears it.
  t.equal((await world.signInAs('fay-idp', 'fay@acme.test')).status, 302);
  t.match((await asBrowser(app, '/team/sso', owner.cookie)).body, { status: 'active', last_error: null });
  t.ok((await auditActions()).includes('sso.sign_in_failed'));
});

t.test('an address the provider does not vouch for: email_unverified', async (t) => {
  world.person('gil-idp', 'gil@acme.test', { verified: false });
  refused(t, await world.signInAs('gil-idp', 'gil@acme.test'), 'email_unverified');
  t.match((await signInsOf())[0], { outcome: 'failed', error: 'email_unverified', email: 'gil@acme.test' });
});

t.test('an address on a domain the team does not cover: domain_not_covered', async (t) => {
  world.person('hal-idp', 'hal@elsewhere.test');
  refused(t, await world.signInAs('hal-idp', 'hal@acme.test'), 'domain_not_covered');
  t.equal(await knex('users').where({ email: 'hal@elsewhere.test' }).first(), undefined);
});

t.test('enforced: password sign-in refused on the domain, except for the owners', async (t) => {
  // Sessions open before enforcement: dana's with her password and through the provider, the
  // owner's, and someone's on another domain.
  const danaByPassword = sessionCookieOf(await login(app, 'dana@acme.test', 'dana password'));
  const danaBySso = sessionCookieOf(await world.signInAs('dana-idp', 'dana@acme.test'));
  const elsewhere = (await signup(app, 'eve@elsewhere.test', 'eve password')).cookie;
  const patched = await asBrowser(app, '/team/sso', owner.cookie, { method: 'PATCH', body: { enforced: true } });
  t.match(patched.body, { status: 'active', enforced: true, password_sessions_ended: Number });
  const ended = patched.body.password_sessions_ended as number;
  t.ok(ended >= 1, `${ended} password sessions ended`);
  errorShape(t, await asBrowser(app, '/auth/session', danaByPassword), 401, 'invalid_api_key');
  t.equal((await asBrowser(app, '/auth/session', danaBySso)).status, 200, 'a session through the provider stays');
  t.equal((await asBrowser(app, '/auth/session', owner.cookie)).status, 200, "the owner's password session stays");
  t.equal((await asBrowser(app, '/auth/session', elsewhere)).status, 200, 'another domain is not affected');
  const enforcedEntry = await knex('audit_log_entries').where({ team_id: team.teamId, action: 'sso.enforced' }).first();
  const metadata =
    typeof enforcedEntry.metadata === 'string' ? JSON.parse(enforcedEntry.metadata) : enforcedEntry.metadata;
  t.same(
    metadata,
    { sessions_ended: ended },
    'the audit entry says how many ("password" is a word the scrubber drops)',
  );
  const again = await asBrowser(app, '/team/sso', owner.cookie, { method: 'PATCH', body: { enforced: true } });
  t.equal(again.body.password_sessions_ended, 0, 'none left the second time');
  t.match((await discover('dana@acme.test')).body, { sso: true, enforced: true });
  const attempts: Array<[string, string]> = [
    ['dana@acme.test', 'dana password'],
    ['dana@acme.test', 'wrong'],
    ['nobody@acme.test', 'whatever'],
    [owner.email, 'not the owner password'],
  ];
  for (const [email, password] of attempts) {
    const error = errorShape(t, await login(app, email, password), 403, 'validation_error');
    t.same(error.details, { next: 'sso' }, email);
  }
  const recovery = await login(app, owner.email, OWNER_PASSWORD);
  t.equal(recovery.status, 200, recovery.text);
  t.equal((await asBrowser(app, '/auth/session', sessionCookieOf(recovery))).status, 200);
  const bypass = await knex('audit_log_entries').where({ team_id: team.teamId, action: 'sso.password_bypass' }).first();
  t.match(bypass, { actor_type: 'user', actor_id: owner.userId });
  // An operator of the appliance on the domain keeps password and MFA, and never signs in
  // through a team's provider (an operator is in no team; the admin API needs their MFA).
  const operator = await createOperator(app, { email: 'root@acme.test' });
  const operatorLogin = await login(app, operator.email, operator.password);
  t.equal(operatorLogin.status, 200, operatorLogin.text);
  t.equal(operatorLogin.body.object, 'mfa_challenge');
  world.person('root-idp', 'root@acme.test');
  refused(t, await world.signInAs('root-idp', 'root@acme.test'), 'not_configured');
  t.equal((await knex('team_members').where({ user_id: operator.userId })).length, 0, 'in no team');
  // The OAuth consent page's sign-in form follows the same rule, as a page.
  const client = await registerClient(await discoverOAuth(app), { client_name: 'Some app', scope: 'team:read' });
  const verifier = oauth.generateRandomCodeVerifier();
  const authorize = new URLSearchParams({
    ...{
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: 'team:read',
      state: 's1',
    },
    ...{ code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' },
  });
  const pending = await request(app.url, `/oauth/authorize?${authorize}`);
  const requestId = new URL(pending.headers.get('location')!, app.url).searchParams.get('request')!;
  const consent = await request(app.url, '/oauth/consent/login', {
    method: 'POST',
    rawBody: new URLSearchParams({ request: requestId, email: 'dana@acme.test', password: 'dana password' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(app.url).origin },
  });
  t.equal(consent.status, 403);
  t.match(consent.headers.get('content-type'), /text\/html/);
  t.match(consent.text, /single sign-on/);
  t.notOk(consent.headers.get('set-cookie'));
  // Addresses elsewhere are not affected.
  await signup(app, 'ivy@elsewhere.test', 'ivy password');
  t.equal((await login(app, 'ivy@elsewhere.test', 'ivy password')).status, 200);
});

t.test('turned off: no more discovery, an open round trip ends not_configured, passwords work again', async (t) => {
  world.person('jo-idp', 'jo@acme.test');
  const found = await discover('jo@acme.test');
  const off = await asBrowser(app, '/team/sso', owner.cookie, { method: 'PATCH', body: { active: false } });
  t.match(off.body, { status: 'tested', enforced: false, activated_at: null });
  refused(t, await world.callback(await provider.signIn(found.body.authorization_url, 'jo-idp')), 'not_configured');
  t.same((await discover('jo@acme.test')).body, { object: 'sso_discovery', sso: false });
  t.equal((await login(app, 'dana@acme.test', 'dana password')).status, 200);
  const actions = await auditActions();
  for (const action of ['sso.configured', 'sso.tested', 'sso.activated', 'sso.enforced', 'sso.deactivated'])
    t.ok(actions.includes(action), action);
});

t.test('retention: abandoned round trips after 10 minutes, sign-in records after 90 days', async (t) => {
  const { jobs } = await import('../../../scheduler/jobs/index.js');
  const job = jobs.find((j) => j.name === 'purge-sso-records')!;
  await discover('kim@acme.test'); // never finished at the provider
  const open = (await knex('sso_flows')).length;
  t.ok(open > 0, 'round trips are open');
  t.same(await job.run(app.runtime.services), { flows: 0, sign_ins: 0 }, 'nothing is old enough yet');
  world.clock.advanceTo(Date.now() + 11 * 60_000);
  t.same(await job.run(app.runtime.services), { flows: open, sign_ins: 0 });
  const records = (await knex('sso_sign_ins').where({ team_id: team.teamId })).length;
  world.clock.advanceTo(Date.now() + 91 * 86_400_000);
  t.same(await job.run(app.runtime.services), { flows: 0, sign_ins: records });
});
