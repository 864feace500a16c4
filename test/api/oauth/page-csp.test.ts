import * as oauth from 'oauth4webapi';
import t, { type Test } from 'tap';
import { sessionCookieOf, signup } from '../../helpers/accounts.js';
import { request, type HttpResponse } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { discover, REDIRECT_URI, registerClient } from './oauth-fixture.js';

/**
 * The pages load nothing remote: their Content-Security-Policy allows images from data: URLs
 * only. The consent pages never show a client's logo_uri (an address the client chose, fetched by
 * the person's browser). The one exception is a team's own brand-kit logo on its preference and
 * unsubscribe pages, allowed from that logo's origin alone.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const as = await discover(app);
const client = await registerClient(as, {
  client_name: 'Logo app',
  scope: 'emails:read',
  logo_uri: 'https://logos.example/app.png',
});
const owner = await signup(app, 'csp-owner@example.com', 'csp owner password');
const origin = new URL(app.url).origin;

function imageSources(t: Test, response: HttpResponse, expected: string): void {
  const csp = response.headers.get('content-security-policy') ?? '';
  const imgSrc = /(?:^|;)\s*img-src ([^;]*)/.exec(csp)?.[1]?.trim();
  t.equal(imgSrc, expected, `img-src ${expected}`);
  t.match(csp, /default-src 'none'/, 'nothing else by default');
}

async function consentRequest(): Promise<string> {
  const search = new URLSearchParams({
    ...{ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT_URI, scope: 'emails:read' },
    ...{ state: 's', code_challenge_method: 'S256' },
    code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
  });
  const res = await request(app.url, `/oauth/authorize?${search}`);
  const location = new URL(res.headers.get('location') ?? '', app.url);
  return location.pathname + location.search;
}

t.test('the consent pages: images from data: only, and no client logo', async (t) => {
  const path = await consentRequest();
  const signIn = await request(app.url, path);
  t.equal(signIn.status, 200);
  imageSources(t, signIn, 'data:');
  const signedIn = await request(app.url, '/oauth/consent/login', {
    method: 'POST',
    rawBody: new URLSearchParams({
      request: new URL(path, app.url).searchParams.get('request') ?? '',
      email: 'csp-owner@example.com',
      password: 'csp owner password',
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
  });
  const consent = await request(app.url, path, { headers: { cookie: sessionCookieOf(signedIn) } });
  t.equal(consent.status, 200);
  t.match(consent.text, /Connect Logo app\?/);
  imageSources(t, consent, 'data:');
  t.notMatch(consent.text, /<img/, 'no image at all');
  t.notMatch(consent.text, /logos\.example/, 'the client’s logo_uri is not shown');

  const expired = await request(app.url, '/oauth/consent?request=nope');
  t.equal(expired.status, 400);
  imageSources(t, expired, 'data:');
  const badLink = await request(app.url, '/oauth/authorize?client_id=svcoc_unknown');
  t.equal(badLink.status, 400);
  imageSources(t, badLink, 'data:');
  t.ok(owner.response.body.current_team, 'the owner has a team');
});

t.test('preference and unsubscribe pages: data: only, or the brand-kit logo’s origin', async (t) => {
  const team = await app.createTeam('Branded');
  const call = (method: string, path: string, body?: unknown) =>
    request(app.url, path, { method, token: team.token, body });
  const { id } = (await call('POST', '/contacts', { email: 'csp@example.com' })).body;
  const links = app.runtime.services.contactLinks;
  const paths = [new URL(links.preferencesUrl(id)).pathname, new URL(links.unsubscribeUrl(id)).pathname];
  for (const path of paths) {
    const plain = await request(app.url, path);
    t.equal(plain.status, 200, `${path}: 200`);
    imageSources(t, plain, 'data:');
  }
  const kit = {
    logo_url: 'https://cdn.example.com:8443/brand/logo.png',
    primary_color: null,
    accent_color: null,
    font: null,
    button_style: null,
    company_name: 'Branded Co',
    address: null,
    footer_text: null,
  };
  t.equal((await call('PATCH', '/team', { brand_kit: kit })).status, 200, 'brand kit set');
  for (const path of paths) {
    const branded = await request(app.url, path);
    t.equal(branded.status, 200, `${path}: 200`);
    t.match(branded.text, /<img class="logo" src="https:\/\/cdn\.example\.com:8443\/brand\/logo\.png"/);
    imageSources(t, branded, 'data: https://cdn.example.com:8443');
    t.match(branded.headers.get('content-security-policy'), /frame-ancestors 'none'/, 'the rest unchanged');
    t.match(branded.headers.get('content-security-policy'), /form-action 'self'/);
  }
  const missing = await request(app.url, '/preferences/abc');
  t.equal(missing.status, 404);
  imageSources(t, missing, 'data:');
});
