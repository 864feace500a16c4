import { Secret, TOTP } from 'otpauth';
import t, { type Test } from 'tap';
import { cookiesAreSecure } from '../../../core/accounts/accounts.services.js';
import { captureAccountLinks, sessionCookieOf } from '../../helpers/accounts.js';
import { request, type HttpResponse } from '../../helpers/http.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/**
 * Issue 31, item 8: every cookie the appliance sets is Secure whenever its public URL is https
 * (whatever the env), and in production (behind the TLS proxy) however the URL reads.
 */

/** Requests as a browser on the appliance's public origin would send them. */
function browser(app: TestApp) {
  const origin = new URL(app.runtime.publicUrl.value).origin;
  return (path: string, cookie: string | null, body?: unknown) =>
    request(app.url, path, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body === undefined ? {} : { body }),
      headers: { origin, ...(cookie ? { cookie } : {}) },
    });
}

/** Every Set-Cookie header of the response (at least one). */
function cookies(response: HttpResponse): string[] {
  const all = response.headers.getSetCookie();
  if (all.length === 0) throw new Error(`no Set-Cookie (${response.status} ${response.text})`);
  return all;
}

/** Signup, login, an MFA rotation, the MFA login, an invitation's new account, logout: every Set-Cookie. */
async function everySetCookie(t: Test, app: TestApp): Promise<string[]> {
  const send = browser(app);
  const links = captureAccountLinks(app);
  t.teardown(links.restore);
  const seen: string[] = [];
  const signup = await send('/auth/signup', null, { email: 'cora@example.com', password: 'cora password' });
  t.equal(signup.status, 201, signup.text);
  seen.push(...cookies(signup));
  const loggedIn = await send('/auth/login', null, { email: 'cora@example.com', password: 'cora password' });
  seen.push(...cookies(loggedIn));
  const cookie = sessionCookieOf(loggedIn);

  const invited = await send('/auth/invitations', cookie, { email: 'dora@example.com', role: 'member' });
  t.equal(invited.status, 201, invited.text);
  const invitation = links.last('invitation', 'dora@example.com');
  const accepted = await send('/auth/invitations/accept', null, { token: invitation, password: 'dora password' });
  t.equal(accepted.status, 201, accepted.text);
  seen.push(...cookies(accepted));

  const enrol = await send('/auth/mfa/enrol', cookie, {});
  const secret = Secret.fromBase32(enrol.body.secret as string);
  const confirmed = await send('/auth/mfa/confirm', cookie, { code: TOTP.generate({ secret }) });
  t.equal(confirmed.status, 200, confirmed.text);
  seen.push(...cookies(confirmed));
  const rotated = sessionCookieOf(confirmed);

  const loggedOut = await send('/auth/logout', rotated, {});
  t.equal(loggedOut.status, 200, loggedOut.text);
  seen.push(...cookies(loggedOut));
  t.equal(seen.length, 5);
  return seen;
}

t.test('an https public URL outside production: every Set-Cookie is Secure', async (t) => {
  const app = await startTestApp({ env: { MAILROOM_ENV: 'test', MAILROOM_PUBLIC_URL: 'https://mail.example.test' } });
  t.teardown(() => app.close());
  t.equal(app.runtime.config.env, 'test');
  for (const [i, header] of (await everySetCookie(t, app)).entries()) {
    t.match(header, /; Secure(;|$)/, `Set-Cookie ${i + 1} is Secure`);
  }
  t.equal(app.runtime.services.accountSettings.secureCookies, true, 'what the OAuth consent pages use too');
});

t.test('an http public URL in development: no Set-Cookie is Secure', async (t) => {
  const app = await startTestApp({ env: { MAILROOM_ENV: 'development' } });
  t.teardown(() => app.close());
  t.match(app.runtime.publicUrl.value, /^http:\/\//);
  for (const [i, header] of (await everySetCookie(t, app)).entries()) {
    t.notMatch(header, /Secure/, `Set-Cookie ${i + 1} is not Secure`);
  }
  t.equal(app.runtime.services.accountSettings.secureCookies, false);
});

t.test('the rule: https or production', async (t) => {
  t.equal(cookiesAreSecure('development', 'https://mail.example.test'), true);
  t.equal(cookiesAreSecure('test', 'HTTPS://MAIL.EXAMPLE.TEST/base'), true);
  t.equal(cookiesAreSecure('production', 'http://127.0.0.1:3000'), true, 'production keeps Secure (TLS at the proxy)');
  t.equal(cookiesAreSecure('production', 'https://mail.example.test'), true);
  t.equal(cookiesAreSecure('development', 'http://127.0.0.1:3000'), false);
  t.equal(cookiesAreSecure('test', 'http://mail.example.test'), false);
  t.equal(cookiesAreSecure('development', 'not a url'), true, 'an unreadable URL errs on the safe side');
});
