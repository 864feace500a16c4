import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { defaultDashboardDir } from '../../api/dashboard/dashboard-files.js';
import { DASHBOARD_CSP } from '../../api/dashboard/dashboard-policy.js';
import { request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * The api process serving the dashboard's build (dist/web, made by `npm ci` / `npm run build`):
 * headers, client routes, assets, gzip, redirects for browsers and old links, and the page shown
 * without a build. The build itself is checked by the browser tests (test/browser/dashboard-*).
 */
const app = await startTestApp();
t.teardown(() => app.close());
const html = { accept: 'text/html,application/xhtml+xml' };

t.test('the app shell: index.html with the policy, for every client route', async (t) => {
  for (const path of [
    '/dashboard/',
    '/dashboard/emails',
    '/dashboard/emails/0190a0a0-0000-7000-8000-000000000000',
    '/dashboard/reset-password?token=x',
  ]) {
    const response = await request(app.url, path, { headers: html });
    t.equal(response.status, 200, path);
    t.match(response.headers.get('content-type'), /^text\/html/, `${path} is HTML`);
    t.equal(response.headers.get('content-security-policy'), DASHBOARD_CSP, `${path} carries the policy`);
    t.equal(response.headers.get('cache-control'), 'no-cache', 'index.html is always asked again');
    t.equal(response.headers.get('x-frame-options'), 'DENY');
    t.equal(response.headers.get('x-content-type-options'), 'nosniff');
    t.match(response.text, /<div id="root">/);
  }
  const policy = DASHBOARD_CSP.split('; ');
  for (const directive of ["script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "object-src 'none'"])
    t.ok(policy.includes(directive), directive);
  t.notMatch(DASHBOARD_CSP, /script-src[^;]*unsafe/, 'no inline or eval script');
  const index = await request(app.url, '/dashboard/');
  const scripts = [...index.text.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  t.ok(scripts.length > 0, 'the app is loaded by a script');
  for (const tag of scripts) t.match(tag, /\ssrc="\/dashboard\/assets\/[^"]+\.js"/, `no inline script: ${tag}`);
});

t.test('assets: hashed names, immutable, gzip when taken, 404 for what is not there', async (t) => {
  const index = await request(app.url, '/dashboard/');
  const asset = /src="\/dashboard\/(assets\/[^"]+\.js)"/.exec(index.text)![1]!;
  const plain = await request(app.url, `/dashboard/${asset}`);
  t.equal(plain.status, 200);
  t.match(plain.headers.get('content-type'), /^text\/javascript/);
  t.equal(plain.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  t.equal(plain.headers.get('content-encoding'), null, 'no gzip unless asked');

  const { request: raw } = await import('node:http');
  const gzipped = await new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
    raw(`${app.url}/dashboard/${asset}`, { headers: { 'accept-encoding': 'gzip, br' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
  t.equal(gzipped.encoding, 'gzip');
  t.equal(gunzipSync(gzipped.body).toString('utf8'), plain.text, 'the gzip copy is the same file');

  t.equal(
    (await request(app.url, '/dashboard/assets/missing-0000.js')).status,
    404,
    'an unknown asset is a 404, not the app',
  );
  const outside = await request(app.url, '/dashboard/assets/../build-stamp.json');
  // The client resolves the dot segment (as a browser does): /dashboard/build-stamp.json is a
  // client route, so the app shell answers, never the stamp.
  t.match(outside.text, /<div id="root">/, 'the app shell, not the file');
  t.notMatch(outside.text, /fingerprint/, 'the build stamp is never served');
});

t.test('a browser opening / goes to the dashboard; API clients keep their answer', async (t) => {
  const browser = await request(app.url, '/', { headers: html });
  t.equal(browser.status, 302);
  t.equal(browser.headers.get('location'), '/dashboard/');
  const client = await request(app.url, '/', { headers: { accept: 'application/json' } });
  t.not(client.status, 302, 'no redirect for an API client');
  t.match(client.headers.get('content-type'), /json/);
  const bare = await request(app.url, '/dashboard?x=1', { headers: html });
  t.equal(bare.status, 302);
  t.equal(bare.headers.get('location'), '/dashboard/?x=1');
  const post = await request(app.url, '/dashboard/', { method: 'POST', body: {} });
  t.not(post.status, 200, 'the dashboard answers GET only');
});

t.test('links mailed before the dashboard open its pages', async (t) => {
  const cases: [string, string][] = [
    ['/auth/password-reset?token=abc', '/dashboard/reset-password?token=abc'],
    ['/api/v1/auth/verify-email?token=abc', '/dashboard/verify-email?token=abc'],
    ['/invitations/accept?token=abc', '/dashboard/invitations/accept?token=abc'],
  ];
  for (const [from, to] of cases) {
    const response = await request(app.url, from, { headers: html });
    t.equal(response.status, 302, from);
    t.equal(response.headers.get('location'), to);
  }
  const api = await request(app.url, '/auth/password-reset?token=abc', { headers: { accept: 'application/json' } });
  t.not(api.status, 302, 'an API client asking the API path gets the API');
});

t.test('mailed links point at the dashboard pages', async (t) => {
  const link = app.runtime.services.accountMailer.link('/dashboard/reset-password', 'tok');
  t.equal(link, `${app.url}/dashboard/reset-password?token=tok`);
});

t.test('without a complete build: one page that says how to build, never a half-built app', async (t) => {
  const empty = mkdtempSync(join(tmpdir(), 'mailroom-no-dashboard-'));
  const bare = await startTestApp({ env: { MAILROOM_DASHBOARD_DIR: empty } });
  t.teardown(async () => {
    await bare.close();
    rmSync(empty, { recursive: true, force: true });
  });
  const response = await request(bare.url, '/dashboard/emails', { headers: html });
  t.equal(response.status, 503);
  t.match(response.text, /npm run build/);
  t.equal(response.headers.get('cache-control'), 'no-store');
  t.equal(response.headers.get('content-security-policy'), DASHBOARD_CSP);
  t.equal((await request(bare.url, '/health')).status, 200, 'the API works without it');
});

t.test("the dashboard's own address (dashboard.port): app, API and writes from its origin", async (t) => {
  const own = await startTestApp({ env: { MAILROOM_DASHBOARD_PORT: '0' } });
  t.teardown(() => own.close());
  const url = own.api.dashboardUrl!;
  t.ok(url, 'a second listener');
  t.not(url, own.url);
  t.equal((await request(url, '/dashboard/', { headers: html })).status, 200, 'the app there');
  t.equal((await request(url, '/health')).status, 200, 'and the API it calls, on the same origin');
  const login = (origin: string) =>
    request(url, '/auth/login', {
      method: 'POST',
      body: { email: 'nobody@example.test', password: 'wrong password' },
      headers: { origin },
    });
  const fromDashboard = await login(new URL(url).origin);
  t.not(fromDashboard.status, 403, 'a sign-in from the dashboard origin is not refused as cross-site');
  const fromApi = await login(new URL(own.url).origin);
  t.not(fromApi.status, 403, 'nor one from the API origin');
  const elsewhere = await login('https://evil.example');
  t.equal(elsewhere.status, 403);
  t.equal(elsewhere.body.name, 'invalid_permission');
  t.match(
    own.runtime.services.accountMailer.link('/dashboard/verify-email', 't'),
    new RegExp(`^${url}/dashboard/`),
    'mailed links open the dashboard address',
  );
});

t.test('the default build folder is dist/web of this checkout', async (t) => {
  t.match(defaultDashboardDir(), /dist[\\/]web$/);
});

t.test('a literal dot segment (sent raw, as no browser would) reaches nothing outside the assets', async (t) => {
  const { connect } = await import('node:net');
  const { port } = new URL(app.url);
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () =>
      socket.write(
        `GET /dashboard/assets/../build-stamp.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
      ),
    );
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  t.match(answer, /^HTTP\/1\.1 404/, 'refused');
  t.notMatch(answer, /fingerprint/);
});
