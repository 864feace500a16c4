import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { Secret, TOTP } from 'otpauth';
import t from 'tap';
import { browserSkipReason, launchChromium } from '../helpers/browser.js';
import { asBrowser, signup } from '../helpers/accounts.js';
import { errorShape, request } from '../helpers/http.js';
import { movableClock } from '../helpers/clock.js';
import { startTestApp } from '../helpers/test-app.js';
import { discover, exchange as exchangeCode, refresh, registerClient, revoke } from '../api/oauth/oauth-fixture.js';

/**
 * The whole OAuth code flow as an integrator's app and a person see it: oauth4webapi registers
 * a client and builds the authorization URL, headless Chromium (Debian's, driven by
 * playwright-core) opens it, signs in on the consent page (with the second factor when MFA is
 * on) and clicks Allow or Deny; the app takes the code from its callback, exchanges it, calls
 * the API, refreshes, is caught replaying a rotated refresh token, and revokes. Runs in the
 * SQLite pass only, like the other browser test.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const clock = movableClock();
  const app = await startTestApp({ clock });
  const browser = await launchChromium();
  t.teardown(async () => {
    await browser.close();
    await app.close();
  });
  // The app's callback: a real server on loopback (Playwright does not route redirected requests).
  const callbacks: URL[] = [];
  const appServer = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') callbacks.push(url); // not the browser's /favicon.ico
    res.writeHead(200, { 'content-type': 'text/plain' }).end('Back in the app');
  });
  await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => appServer.close(() => resolve())));
  const REDIRECT_URI = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}/callback`;
  const as = await discover(app);
  const client = await registerClient(as, {
    client_name: 'Calendar Sync',
    scope: 'emails:read team:read team:write',
    redirect_uris: [REDIRECT_URI],
  });
  /** The app's side once the browser is back: check the answer, exchange the code with the verifier. */
  const exchange = (callback: URL, flow: { state: string; verifier: string }) =>
    exchangeCode(
      as,
      client,
      { callback: oauth.validateAuthResponse(as, client, callback, flow.state), ...flow },
      REDIRECT_URI,
    );

  /** The authorization URL the app sends the person to, and what it keeps to check the answer. */
  async function authorizationUrl(scope: string, resource?: string) {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      ...{ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope, state },
      ...{ code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' },
      ...(resource ? { resource } : {}),
    }).toString();
    return { url: url.toString(), verifier, state };
  }

  /** A fresh browser profile (no cookies), JavaScript off: the pages must not need it. */
  async function personBrowser() {
    callbacks.length = 0;
    const context = await browser.newContext({ javaScriptEnabled: false });
    return { context, page: await context.newPage(), callbacks };
  }

  async function signIn(page: import('playwright-core').Page, email: string, password: string) {
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  t.test('sign in, allow; the app exchanges, calls, refreshes, detects reuse and revokes', async (t) => {
    const person = await signup(app, 'paula@example.com', 'paula password', 'Paula');
    const teamId = person.response.body.current_team.id as string;
    const { page, context, callbacks } = await personBrowser();
    const flow = await authorizationUrl('emails:read team:read');

    await page.goto(flow.url);
    t.equal(await page.title(), 'Sign in');
    t.ok(await page.getByText('Calendar Sync').isVisible(), 'the sign-in page names the app');
    await signIn(page, 'paula@example.com', 'paula password');
    await page.waitForURL(/\/oauth\/consent\?request=/);
    t.equal(await page.title(), 'Connect an app');
    t.equal(await page.getByRole('heading').textContent(), 'Connect Calendar Sync?');
    const scopes = await page.locator('li code').allTextContents();
    t.same(scopes, ['emails:read', 'team:read'], 'the page lists the scopes asked for');
    await Promise.all([page.waitForURL(`${REDIRECT_URI}**`), page.getByRole('button', { name: 'Allow' }).click()]);
    t.equal(await page.textContent('body'), 'Back in the app', 'the browser followed the redirect to the app');
    t.equal(callbacks.length, 1);

    const tokens = await exchange(callbacks[0]!, flow);
    t.equal(tokens.expires_in, 3600);
    t.equal(tokens.scope, 'emails:read team:read');
    const team = await request(app.url, '/team', { token: tokens.access_token });
    t.equal(team.status, 200);
    t.equal(team.body.id, teamId, 'the token acts in the team the person chose');
    errorShape(t, await request(app.url, '/team/members', { token: tokens.access_token }), 403, 'invalid_permission');

    const rotated = await refresh(as, client, tokens.refresh_token!);
    t.not(rotated.refresh_token, tokens.refresh_token, 'refresh rotates');
    t.equal((await request(app.url, '/team', { token: rotated.access_token })).status, 200);
    await t.rejects(
      refresh(as, client, tokens.refresh_token!),
      { name: 'ResponseBodyError', error: 'invalid_grant' } as never,
      'reuse is refused',
    );
    errorShape(t, await request(app.url, '/team', { token: rotated.access_token }), 401, 'invalid_api_key');

    const again = await authorizationUrl('emails:read');
    await page.goto(again.url);
    t.equal(await page.title(), 'Connect an app', 'signed in already: straight to the question');
    await Promise.all([page.waitForURL(`${REDIRECT_URI}**`), page.getByRole('button', { name: 'Allow' }).click()]);
    const second = await exchange(callbacks[1]!, again);
    t.equal((await revoke(as, client, second.access_token)).status, 200);
    errorShape(t, await request(app.url, '/emails', { token: second.access_token }), 401, 'invalid_api_key');
    await context.close();
  });

  t.test('deny: the app gets error=access_denied with its state, and no code', async (t) => {
    await signup(app, 'dora@example.com', 'dora password');
    const { page, context, callbacks } = await personBrowser();
    const flow = await authorizationUrl('team:read');
    await page.goto(flow.url);
    await signIn(page, 'dora@example.com', 'dora password');
    await page.waitForURL(/\/oauth\/consent\?request=/);
    await Promise.all([page.waitForURL(`${REDIRECT_URI}**`), page.getByRole('button', { name: 'Deny' }).click()]);
    const answer = callbacks[0]!;
    t.equal(answer.searchParams.get('error'), 'access_denied');
    t.equal(answer.searchParams.get('state'), flow.state);
    t.equal(answer.searchParams.get('code'), null);
    t.throws(
      () => oauth.validateAuthResponse(as, client, answer, flow.state),
      { error: 'access_denied' } as never,
      'oauth4webapi reads the refusal',
    );
    await context.close();
  });

  t.test('a request refused before consent is an error page: the browser never goes to the app', async (t) => {
    const { page, context, callbacks } = await personBrowser();
    for (const flow of [
      await authorizationUrl('emails:delete'),
      await authorizationUrl('team:read', 'https://elsewhere.example/mcp'),
    ]) {
      const response = await page.goto(flow.url);
      t.equal(response?.status(), 400, 'a 400 page');
      t.equal(await page.title(), 'This sign-in link is not valid');
      t.ok(page.url().startsWith(`${app.url}/oauth/authorize`), 'the browser stays on this server');
    }
    t.equal(callbacks.length, 0, 'nothing reached the app');
    await context.close();
  });

  t.test('resource=<public URL>/mcp: the token works on /mcp and not on the REST API', async (t) => {
    await signup(app, 'max@example.com', 'max password');
    const { page, context, callbacks } = await personBrowser();
    const resource = `${app.url}/mcp`;
    const flow = await authorizationUrl('emails:read', resource);
    await page.goto(flow.url);
    await signIn(page, 'max@example.com', 'max password');
    await page.waitForURL(/\/oauth\/consent\?request=/);
    await Promise.all([page.waitForURL(`${REDIRECT_URI}**`), page.getByRole('button', { name: 'Allow' }).click()]);
    const tokens = await exchangeCode(
      as,
      client,
      { callback: oauth.validateAuthResponse(as, client, callbacks[0]!, flow.state), ...flow },
      REDIRECT_URI,
      { resource },
    );
    const mcp = await request(app.url, '/mcp', {
      method: 'POST',
      token: tokens.access_token,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
    t.equal(mcp.status, 200, '/mcp takes it');
    errorShape(t, await request(app.url, '/emails', { token: tokens.access_token }), 401, 'invalid_api_key');
    await context.close();
  });

  t.test('with MFA on, the consent page asks for the code between password and question', async (t) => {
    const { cookie } = await signup(app, 'mia@example.com', 'mia password');
    const post = (path: string, body: unknown) => asBrowser(app, path, cookie, { method: 'POST', body });
    const { secret } = (await post('/auth/mfa/enrol', {})).body as { secret: string };
    const code = () => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: clock.now().getTime() });
    t.equal((await post('/auth/mfa/confirm', { code: code() })).status, 200);

    const { page, context, callbacks } = await personBrowser();
    const flow = await authorizationUrl('team:read');
    await page.goto(flow.url);
    await signIn(page, 'mia@example.com', 'mia password');
    t.equal(await page.title(), 'Two-step verification');
    await page.getByLabel('Code').fill('000000');
    await page.getByRole('button', { name: 'Verify' }).click();
    t.ok(await page.getByRole('alert').isVisible(), 'a wrong code is told, and asked again');
    t.equal(await page.title(), 'Two-step verification');
    clock.advanceTo(clock.now().getTime() + 30_000); // a TOTP step works once: confirm used this one
    await page.getByLabel('Code').fill(code());
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/oauth\/consent\?request=/);
    await Promise.all([page.waitForURL(`${REDIRECT_URI}**`), page.getByRole('button', { name: 'Allow' }).click()]);
    t.equal(callbacks.length, 1, 'one answer reached the app');
    const tokens = await exchange(callbacks[0]!, flow);
    t.equal((await request(app.url, '/team', { token: tokens.access_token })).status, 200);
    await context.close();
  });
}
