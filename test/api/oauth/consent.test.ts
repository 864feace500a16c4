import * as oauth from 'oauth4webapi';
import t from 'tap';
import { asBrowser, sessionCookieOf, signup } from '../../helpers/accounts.js';
import { request } from '../../helpers/http.js';
import { escapeHtml } from '../../../lib/text/escape-html.js';
import { startTestApp } from '../../helpers/test-app.js';
import { discover, exchange, REDIRECT_URI, registerClient } from './oauth-fixture.js';

/**
 * The consent page over plain HTTP (the browser drives it in test/browser/oauth-consent.test.ts):
 * sign-in first, approval and refusal, one answer per request, the Origin check on every form,
 * owners and admins only, expired requests, and the page's headers.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const as = await discover(app);
const client = await registerClient(as, { client_name: 'Inbox Zero', scope: 'emails:read team:read' });
const owner = await signup(app, 'olive@example.com', 'olive password');
const ownerTeam = owner.response.body.current_team as { id: string; name: string };
const origin = new URL(app.url).origin;

/** GET /oauth/authorize as a browser would, returning the consent request id and the verifier. */
async function startFlow(scope = 'emails:read team:read', state = 'st-1') {
  const verifier = oauth.generateRandomCodeVerifier();
  const search = new URLSearchParams({
    ...{ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope, state },
    ...{ code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' },
  });
  const res = await request(app.url, `/oauth/authorize?${search}`);
  const location = new URL(res.headers.get('location') ?? '', app.url);
  return { requestId: location.searchParams.get('request') ?? '', verifier, path: location.pathname + location.search };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
function postForm(path: string, fields: Record<string, string>, cookie: string | null, from: string | null = origin) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (cookie) headers.cookie = cookie;
  if (from) headers.origin = from;
  return request(app.url, path, { method: 'POST', rawBody: form(fields), headers });
}
const page = (path: string, cookie: string | null) => request(app.url, path, { headers: cookie ? { cookie } : {} });

t.test('without a session the consent page is a sign-in form; signing in comes back to it', async (t) => {
  const flow = await startFlow();
  const signIn = await page(flow.path, null);
  t.equal(signIn.status, 200);
  t.match(signIn.headers.get('content-type'), /text\/html/);
  t.match(signIn.text, /Sign in to continue/);
  t.match(signIn.text, /Inbox Zero/);
  t.match(signIn.text, /action="\/oauth\/consent\/login"/);
  t.equal(signIn.headers.get('referrer-policy'), 'same-origin', 'form posts carry this origin');
  t.equal(signIn.headers.get('x-frame-options'), 'DENY', 'the page cannot be framed (clickjacking)');

  const wrong = await postForm(
    '/oauth/consent/login',
    { request: flow.requestId, email: 'olive@example.com', password: 'nope' },
    null,
  );
  t.equal(wrong.status, 401);
  t.match(wrong.text, /do not match an account/);
  t.notOk(wrong.headers.get('set-cookie'), 'no session for a wrong password');

  const right = await postForm(
    '/oauth/consent/login',
    { request: flow.requestId, email: 'olive@example.com', password: 'olive password' },
    null,
  );
  t.equal(right.status, 303);
  t.equal(right.headers.get('location'), `/oauth/consent?request=${flow.requestId}`);
  const cookie = sessionCookieOf(right);

  const consent = await page(flow.path, cookie);
  t.equal(consent.status, 200);
  t.match(consent.text, /Connect Inbox Zero\?/);
  t.ok(consent.text.includes(escapeHtml(ownerTeam.name)), 'names the team');
  t.match(consent.text, /<code>emails:read<\/code>/);
  t.match(consent.text, /<code>team:read<\/code>/);
  t.match(consent.text, /127\.0\.0\.1:7777/, 'shows where the answer goes');
  t.match(consent.headers.get('content-security-policy'), /form-action 'self' http:\/\/127\.0\.0\.1:7777;/);
});

t.test('approval redirects with code and state; the code exchanges for tokens of that team', async (t) => {
  const flow = await startFlow('emails:read', 'state-approve');
  const answer = await postForm('/oauth/consent', { request: flow.requestId, decision: 'approve' }, owner.cookie);
  t.equal(answer.status, 303);
  const location = new URL(answer.headers.get('location') ?? '');
  t.equal(`${location.origin}${location.pathname}`, REDIRECT_URI);
  t.equal(location.searchParams.get('state'), 'state-approve');
  t.match(location.searchParams.get('code'), /^svcc_/);
  const callback = oauth.validateAuthResponse(as, client, location, 'state-approve');
  const tokens = await exchange(as, client, { callback, verifier: flow.verifier });
  t.equal(tokens.scope, 'emails:read');
  t.equal((await request(app.url, '/emails', { token: tokens.access_token })).status, 200);
  const grant = await app.runtime.db.knex('oauth_grants').where({ team_id: ownerTeam.id }).first();
  t.equal(grant.user_id, owner.user.id, 'the grant records who approved');
  const audited = await app.runtime.db
    .knex('audit_log_entries')
    .where({ team_id: ownerTeam.id, action: 'oauth_grant.created' });
  t.equal(audited.length, 1, 'the audit log records the connected app');
  t.match(audited[0], {
    actor_type: 'user',
    actor_id: owner.user.id,
    resource_type: 'oauth_grant',
    resource_id: grant.id,
  });
  t.match(JSON.parse(audited[0].metadata), { client_id: client.client_id, scopes: ['emails:read'] });
  t.notOk(JSON.stringify(audited).includes(location.searchParams.get('code')!), 'not the code');

  const again = await postForm('/oauth/consent', { request: flow.requestId, decision: 'approve' }, owner.cookie);
  t.equal(again.status, 400, 'a request takes one answer');
  t.match(again.text, /expired/);
  t.notOk(again.headers.get('location'));
});

t.test('refusal redirects with error=access_denied, error_description and state, and no code', async (t) => {
  const flow = await startFlow('emails:read', 'state-deny');
  const answer = await postForm('/oauth/consent', { request: flow.requestId, decision: 'deny' }, owner.cookie);
  t.equal(answer.status, 303);
  const location = new URL(answer.headers.get('location') ?? '');
  t.equal(location.searchParams.get('error'), 'access_denied');
  t.ok(location.searchParams.get('error_description'));
  t.equal(location.searchParams.get('state'), 'state-deny');
  t.equal(location.searchParams.get('code'), null);
});

t.test('every form must come from this origin', async (t) => {
  const flow = await startFlow();
  for (const from of ['https://evil.example', null, 'null']) {
    const answer = await postForm(
      '/oauth/consent',
      { request: flow.requestId, decision: 'approve' },
      owner.cookie,
      from,
    );
    t.equal(answer.status, 403, `Origin ${from}: refused`);
    t.match(answer.text, /must be sent from this site/);
    const login = await postForm(
      '/oauth/consent/login',
      { request: flow.requestId, email: 'olive@example.com', password: 'olive password' },
      null,
      from,
    );
    t.equal(login.status, 403, `Origin ${from}: no login CSRF`);
    t.notOk(login.headers.get('set-cookie'));
  }
  t.ok(await app.runtime.services.oauthAuthorization.pending(flow.requestId), 'a refused post leaves the request');
});

t.test('expired, unknown or missing requests are a 400 page that redirects nowhere', async (t) => {
  for (const path of ['/oauth/consent', '/oauth/consent?request=unknown', '/oauth/consent?request=']) {
    const res = await page(path, owner.cookie);
    t.equal(res.status, 400, path);
    t.match(res.text, /This request has expired/);
  }
  const flow = await startFlow();
  await app.runtime.services.oauthAuthorization.answer(flow.requestId);
  t.equal((await page(flow.path, owner.cookie)).status, 400, 'an answered request is gone');
  const login = await postForm('/oauth/consent/login', { request: 'unknown', email: 'a@b.test', password: 'x' }, null);
  t.equal(login.status, 400);
});

t.test('a plain member cannot connect apps to the team; the POST without a session shows the sign-in', async (t) => {
  const member = await signup(app, 'max@example.com', 'max password');
  await app.runtime.db.knex('team_members').where({ user_id: member.user.id }).update({ role: 'member' });
  const flow = await startFlow();
  const shown = await page(flow.path, member.cookie);
  t.equal(shown.status, 403);
  t.match(shown.text, /Ask a team admin/);
  const answer = await postForm('/oauth/consent', { request: flow.requestId, decision: 'approve' }, member.cookie);
  t.equal(answer.status, 403);
  t.notOk(answer.headers.get('location'));
  t.ok(await app.runtime.services.oauthAuthorization.pending(flow.requestId), 'the request is still open');

  const anonymous = await postForm('/oauth/consent', { request: flow.requestId, decision: 'approve' }, null);
  t.equal(anonymous.status, 401);
  t.match(anonymous.text, /Sign in to continue/);
  const loggedOut = await asBrowser(app, '/auth/session', null);
  t.equal(loggedOut.status, 401, 'sanity: no cookie, no session');
});
