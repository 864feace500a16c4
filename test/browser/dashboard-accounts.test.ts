import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Secret, TOTP } from 'otpauth';
import t from 'tap';
import { captureAccountLinks } from '../helpers/accounts.js';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot } from '../helpers/dashboard.js';
import { cliEnvFor } from '../helpers/spawn-mailroom.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * A person's first hour with the dashboard, in Debian's chromium against a real appliance: the
 * set-password link `mailroom user create` prints, signing in, two-factor enrolment with a code
 * computed here, signing out and back in with a code and with a recovery code, a password reset
 * by the mailed link; each page screenshotted and checked with axe-core. Along the way: the
 * session cookie is never readable by script, nothing is kept in web storage, and every write
 * the app makes carries this appliance's Origin. SQLite pass only.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const app = await startTestApp();
  const { teamId } = await app.createTeam('Acme');
  const links = captureAccountLinks(app);
  const d = await openDashboard(app);
  t.teardown(async () => {
    links.restore();
    await d.close();
    await app.close();
  });
  const { page } = d;
  const origin = new URL(app.url).origin;
  // allHeaders(): the headers as sent (Origin is added by the network stack, after the page's call).
  const writes: Promise<{ method: string; url: string; origin: string | undefined }>[] = [];
  page.on('request', (req) => {
    if (req.method() !== 'GET' && req.url().includes('/api/v1/'))
      writes.push(
        req.allHeaders().then((headers) => ({ method: req.method(), url: req.url(), origin: headers.origin })),
      );
  });
  const email = 'ada@acme.example';
  const password = 'a long passphrase';

  t.test('the link mailroom user create prints opens a page that sets the password', async (t) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['bin/mailroom.js', 'user', 'create', '--email', email, '--name', 'Ada', '--team', teamId, '--role', 'owner'],
      { env: cliEnvFor(app.runtime.config, { MAILROOM_CONFIG: '', MAILROOM_PUBLIC_URL: app.url }) },
    );
    const link = JSON.parse(stdout).set_password_url as string;
    t.match(link, new RegExp(`^${app.url}/dashboard/reset-password\\?token=`));
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a password' }).waitFor();
    await assertAccessible(t, page, 'choose a password');
    await page.getByLabel('New password').fill(password);
    await page.getByLabel('Repeat the password').fill('something else');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('The two passwords are not the same.').waitFor();
    await screenshot(page, 'accounts-set-password-mismatch');
    await page.getByLabel('Repeat the password').fill(password);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Password set' }).waitFor();
    await screenshot(page, 'accounts-password-set');
  });

  t.test('sign in: a wrong password is said in words, the right one opens the emails', async (t) => {
    await page.getByRole('link', { name: /Sign in with your new password/ }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await assertAccessible(t, page, 'sign in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('not my password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    t.match(await alert.innerText(), /password/i, 'the refusal names what is wrong');
    await screenshot(page, 'accounts-sign-in-refused');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/dashboard/emails');
    t.match(await page.locator('.team-name').innerText(), /Acme/, 'the team is shown');
  });

  let secret = '';
  let recoveryCodes: string[] = [];
  t.test('two-factor enrolment: a QR code drawn locally, the key, a first code, recovery codes once', async (t) => {
    await page.getByRole('link', { name: /Ada/ }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    const qr = page.getByRole('img', { name: 'QR code for your authenticator app' });
    await qr.waitFor();
    t.match(await qr.getAttribute('src'), /^data:image\/svg\+xml;base64,/, 'the QR code is drawn in the page');
    secret = (await page.locator('.mfa-secret').innerText()).trim();
    t.match(secret, /^[A-Z2-7]+=*$/, 'the key in base32');
    await assertAccessible(t, page, 'MFA enrolment');
    await screenshot(page, 'accounts-mfa-enrol');
    await page.getByLabel('The 6-digit code the app shows').fill('000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.locator('.field-error, .alert-error').first().waitFor();
    await page.getByLabel('The 6-digit code the app shows').fill(TOTP.generate({ secret: Secret.fromBase32(secret) }));
    await page.getByRole('button', { name: 'Turn on' }).click();
    const codes = page.getByLabel('Recovery codes');
    await codes.waitFor();
    recoveryCodes = (await codes.innerText()).split('\n').filter(Boolean);
    t.equal(recoveryCodes.length, 10, 'ten recovery codes');
    await screenshot(page, 'accounts-mfa-recovery-codes');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText(/recovery codes left/).waitFor();
  });

  t.test('no credential is reachable by script or kept in web storage', async (t) => {
    // A string expression: the tests compile without the DOM library (it would change Node's types).
    const seen = (await page.evaluate(
      '({ cookie: document.cookie, local: localStorage.length, session: sessionStorage.length })',
    )) as { cookie: string; local: number; session: number };
    t.notMatch(seen.cookie, /mailroom_session/, 'the session cookie is HttpOnly');
    t.equal(seen.local, 0, 'nothing in localStorage');
    t.equal(seen.session, 0, 'nothing in sessionStorage');
    const cookie = (await d.context.cookies()).find((c) => c.name === 'mailroom_session');
    t.ok(cookie?.httpOnly, 'HttpOnly');
    t.equal(cookie?.sameSite, 'Lax');
  });

  t.test('sign out, then back in with a computed code (a wrong one first)', async (t) => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL('**/dashboard/login');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    await assertAccessible(t, page, 'MFA challenge');
    await page.getByLabel('Authentication code').fill('123456');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('alert').first().waitFor();
    await screenshot(page, 'accounts-mfa-challenge-refused');
    // The code used at enrolment is spent: wait for the next 30-second step when needed.
    const next = () => TOTP.generate({ secret: Secret.fromBase32(secret) });
    let code = next();
    const enrolCode = TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() });
    if (code === enrolCode) {
      await page.waitForTimeout(30_000 - (Date.now() % 30_000) + 200);
      code = next();
    }
    await page.getByLabel('Authentication code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/dashboard/emails');
    t.pass('signed in with the code');
  });

  t.test('a recovery code signs in once', async (t) => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL('**/dashboard/login');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL('**/dashboard/emails');
    t.pass('signed in with a recovery code');
  });

  t.test('a password reset by the mailed link', async (t) => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL('**/dashboard/login');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await assertAccessible(t, page, 'forgot password');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByText(/a link to choose a new password is on its way/).waitFor();
    await screenshot(page, 'accounts-reset-requested');
    // The mail is sent after the answer (equal timing for unknown addresses): wait for its link.
    let link: string | undefined;
    for (let i = 0; i < 50 && !link; i++) {
      link = links.links.filter((l) => l.kind === 'password_reset' && l.to === email).at(-1)?.link;
      if (!link) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    t.match(link, new RegExp(`^${app.url}/dashboard/reset-password\\?token=`));
    await page.goto(link!);
    await page.getByLabel('New password').fill('another long passphrase');
    await page.getByLabel('Repeat the password').fill('another long passphrase');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Password set' }).waitFor();
  });

  t.test('pages reached without a session go to sign-in and come back after', async (t) => {
    await page.goto('/dashboard/domains');
    await page.waitForURL(/\/dashboard\/login\?next=%2Fdomains/);
    t.pass('sent to sign in with the way back');
    await page.goto('/dashboard/invitations/accept?token=not-a-real-token');
    await page.getByRole('heading', { name: 'Invitation' }).waitFor();
    await page.getByRole('alert').waitFor();
    await assertAccessible(t, page, 'invitation with a bad token');
    await screenshot(page, 'accounts-invitation-invalid');
    await page.goto('/dashboard/signup');
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await assertAccessible(t, page, 'sign up');
  });

  t.test('every write carried the appliance Origin; no page error', async (t) => {
    const sent = await Promise.all(writes);
    t.ok(sent.length >= 8, `the journey made writes (${sent.length})`);
    t.same(
      sent.filter((w) => w.origin !== origin),
      [],
      'each POST, PATCH and DELETE to the API carried Origin',
    );
    t.same(d.errors, [], 'no script error on any page');
  });
}
