import type { BrowserContext, Page } from 'playwright-core';
import t from 'tap';
import { asBrowser, sessionInTeam } from '../helpers/accounts.js';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot } from '../helpers/dashboard.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * Single sign-on in the dashboard against a real OpenID provider (oidc-provider on loopback):
 * an owner configures it on /team/sso (a wrong issuer is marked on its field first), tests it
 * through the provider's own login page in Chromium (a tampered ID token first: the failure comes
 * back in words and the status says failing; then a good round trip), activates and enforces it.
 * In a fresh browser a new person of the covered domain is offered single sign-on on the sign-in
 * page, is refused a password, goes through the provider and lands in the dashboard as a
 * just-in-time member; the owner still signs in with a password (the recovery path); the owner's
 * page lists the sign-ins. A team whose plan lacks SSO reads why; a member reads who can set it up.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const app = await startTestApp();
  const provider: TestOidcProvider = await startOidcProvider({ redirectUri: `${app.url}/auth/sso/callback` });
  t.teardown(async () => {
    await provider.close();
    await app.close();
  });

  const useCookie = async (context: BrowserContext, cookie: string) => {
    const value = cookie.split('=')[1]!;
    await context.addCookies([{ name: 'mailroom_session', value, url: app.url, httpOnly: true, sameSite: 'Lax' }]);
  };
  /**
   * At the provider's (development) login page in the browser: sign in as `account`, unless the
   * provider remembers this browser's session and sends it straight back (to a URL matching `back`).
   */
  const signInAtProvider = async (page: Page, account: string, back: RegExp, shot?: string) => {
    const interaction = (url: URL) => url.href.startsWith(provider.issuer) && url.pathname.startsWith('/interaction/');
    await page.waitForURL((url) => interaction(url) || back.test(url.href), { waitUntil: 'domcontentloaded' });
    if (!interaction(new URL(page.url()))) return;
    await page.locator('input[name="login"]').fill(account);
    // The development login page takes any password.
    await page.locator('input[name="password"]').fill('any');
    if (shot) await screenshot(page, shot);
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.waitForURL(back);
  };
  const toast = (page: Page, text: string) => page.locator('.toast', { hasText: text }).waitFor();

  t.test('an owner sets SSO up; a new person joins through it; passwords are refused but the owner’s', async (t) => {
    const team = await app.createTeam('Northwind', 'scale');
    await markedVerifiedDomain(app, team.teamId, 'northwind.test');
    await markedVerifiedDomain(app, team.teamId, 'northwind-mail.test');
    const ownerEmail = 'olivia@northwind.test';
    const ownerPassword = 'owner horse battery staple';
    const { user: owner } = await app.runtime.services.accounts.createByOperator({
      email: ownerEmail,
      teamId: team.teamId,
      role: 'owner',
      name: 'Olivia Owner',
      password: ownerPassword,
    });
    const ownerCookie = `mailroom_session=${(await app.runtime.services.userSessions.issue(owner, team.teamId)).token}`;
    provider.accounts.set(ownerEmail, { email: ownerEmail, emailVerified: true, name: 'Olivia Owner' });
    provider.accounts.set('dana@northwind.test', {
      email: 'dana@northwind.test',
      emailVerified: true,
      name: 'Dana Doe',
    });
    const getSso = async () => (await asBrowser(app, '/team/sso', ownerCookie)).body;

    const d = await openDashboard(app);
    t.teardown(() => d.close());
    const { page } = d;
    await useCookie(d.context, ownerCookie);

    // From the team page to the SSO page.
    await page.goto('/dashboard/team');
    const card = page.getByRole('region', { name: 'Single sign-on' });
    await card.waitFor();
    await card.getByRole('link', { name: 'Set up single sign-on' }).click();
    await page.getByRole('heading', { level: 1, name: 'Single sign-on' }).waitFor();
    t.match(page.url(), /\/dashboard\/team\/sso$/, 'its own page');
    const form = page.getByRole('form', { name: 'Identity provider settings' });
    await form.getByLabel('northwind.test', { exact: true }).waitFor();
    await screenshot(page, 'sso-new');
    await assertAccessible(t, page, 'sso: new');

    // An issuer that answers no discovery: refused, and marked on its field.
    await form.getByLabel('Issuer URL').fill('http://127.0.0.1:9/');
    await form.getByLabel('Client ID').fill(provider.clientId);
    await form.getByLabel('Client secret').fill(provider.clientSecret);
    await form.getByLabel('northwind.test', { exact: true }).check();
    await form.getByRole('button', { name: 'Save and continue' }).click();
    const issuerField = form.getByLabel('Issuer URL');
    await form.locator('.field-invalid').first().waitFor();
    t.equal(await issuerField.getAttribute('aria-invalid'), 'true', 'the issuer is marked');
    t.match(
      await form.locator('.field-invalid .field-error').first().innerText(),
      /Discovery/,
      'with the API’s reason',
    );
    t.match(await form.getByRole('alert').last().innerText(), /not saved[\s\S]*issuer could not be used/, 'and why');
    await screenshot(page, 'sso-field-error');

    // The right issuer: saved, the secret is stored, the redirect URI to register is shown.
    await issuerField.fill(provider.issuer);
    await form.getByRole('button', { name: 'Save and continue' }).click();
    await toast(page, 'Single sign-on configured');
    const status = page.getByRole('region', { name: 'Status' });
    const badge = (text: string) => status.locator('.badge', { hasText: `Status: ${text}` });
    await badge('Configured').waitFor();
    const redirect = `${app.url}/auth/sso/callback`;
    t.ok(await page.getByText(redirect, { exact: true }).isVisible(), 'the redirect URI to register is shown');
    t.ok(await page.getByRole('button', { name: /Copy the redirect URI/ }).isVisible(), 'with a copy button');
    const saved = page.getByRole('form', { name: 'Identity provider settings' });
    t.ok(await saved.getByText('Stored', { exact: true }).isVisible(), 'the secret shows as stored');
    t.equal(await saved.locator('input[name="client_secret"]').count(), 0, 'and is not in a field');
    t.ok(await page.getByRole('switch', { name: 'Active' }).isDisabled(), 'activating needs a test first');
    t.ok(await page.getByRole('switch', { name: 'Enforced' }).isDisabled(), 'enforcing needs it active');
    t.match(await getSso(), { status: 'configured', issuer: provider.issuer, domains: ['northwind.test'] });
    await screenshot(page, 'sso-configured');
    await assertAccessible(t, page, 'sso: configured');

    // A test whose ID token is for another audience: back with the failure in words.
    provider.tamper = { aud: 'someone-else' };
    await page.getByRole('button', { name: 'Test sign-in' }).click();
    await signInAtProvider(page, ownerEmail, /\/dashboard\/team\/sso\?sso_test=failed/, 'sso-provider-login');
    const failed = page.locator('.sso-test-result');
    await failed.waitFor();
    t.match(await failed.innerText(), /The test sign-in failed\.[\s\S]*token/, 'the failure, in words');
    await badge('Failing').waitFor();
    t.match(await status.innerText(), /Last error:/, 'the last error is shown');
    await screenshot(page, 'sso-test-failed');

    // A good round trip.
    provider.tamper = null;
    await page.getByRole('button', { name: 'Test sign-in' }).click();
    await signInAtProvider(page, ownerEmail, /\/dashboard\/team\/sso\?sso_test=ok/);
    await page.getByText('The test sign-in worked.').waitFor();
    await badge('Tested').waitFor();
    t.notMatch(await status.innerText(), /Last error:/, 'no error any more');
    await screenshot(page, 'sso-tested');

    // Activate, then enforce.
    await page.getByRole('switch', { name: 'Active' }).click();
    await toast(page, 'Single sign-on is active');
    await badge('Active').waitFor();
    await page.getByRole('switch', { name: 'Enforced' }).click();
    await toast(page, 'Single sign-on is enforced');
    t.ok(await page.getByRole('switch', { name: 'Enforced' }).isChecked(), 'enforced');
    t.match(await getSso(), { status: 'active', enforced: true });
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await screenshot(page, 'sso-enforced');
    await assertAccessible(t, page, 'sso: active and enforced');
    t.same(d.errors, [], 'no page errors for the owner');

    // A new person of the covered domain, in a fresh browser.
    const fresh = await d.browser.newContext({ baseURL: app.url, viewport: { width: 1280, height: 860 } });
    t.teardown(() => fresh.close());
    const dana = await fresh.newPage();
    const danaErrors: string[] = [];
    dana.on('pageerror', (err) => danaErrors.push(err.message));
    await dana.goto('/dashboard/login');
    await dana.getByLabel('E-mail').fill('dana@northwind.test');
    const continueSso = dana.getByRole('button', { name: 'Continue with single sign-on' });
    await continueSso.waitFor();
    t.equal(await dana.getByLabel('Password').count(), 0, 'no password field where SSO is enforced');
    t.ok(await dana.getByText('Your organisation requires single sign-on for this address.').isVisible());
    const ownersOnly = dana.getByRole('button', { name: 'Sign in with password (owners only)' });
    t.ok(await ownersOnly.isVisible(), 'owners keep a way to their password');
    await screenshot(dana, 'login-sso-enforced');
    await assertAccessible(t, dana, 'sign-in: SSO enforced');

    // A password anyway: the API's refusal, in words, pointing to single sign-on.
    await ownersOnly.click();
    await dana.getByLabel('Password').fill('a password she does not have');
    await dana.getByRole('button', { name: 'Sign in', exact: true }).click();
    const refusal = dana.getByRole('alert').filter({ hasText: 'single sign-on, not with a password' });
    await refusal.waitFor();
    t.match(await refusal.innerText(), /Only the team’s owners may still sign in with a password/, 'explained');
    await screenshot(dana, 'login-sso-password-refused');
    await assertAccessible(t, dana, 'sign-in: password refused');

    // Through the provider, back in the dashboard as a member of the team.
    await continueSso.click();
    await signInAtProvider(dana, 'dana@northwind.test', /\/dashboard\/emails/, 'sso-provider-login-dana');
    await dana.locator('.team-name', { hasText: 'Northwind' }).waitFor();
    t.match(await dana.locator('.team-name').innerText(), /member/i, 'a member of the team');
    const members = await asBrowser(app, '/team/members', ownerCookie);
    t.match(JSON.stringify(members.body), /dana@northwind\.test/, 'the team lists her');
    t.equal(
      await dana.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Audit log' }).count(),
      0,
      'a member has no audit log entry',
    );
    await dana.getByRole('heading', { level: 1, name: 'Emails' }).waitFor();
    await screenshot(dana, 'sso-joined-member');
    t.same(danaErrors, [], 'no page errors for the new member');

    // The owner's recovery path: password sign-in still works for an owner.
    const recovery = await d.browser.newContext({ baseURL: app.url, viewport: { width: 1280, height: 860 } });
    t.teardown(() => recovery.close());
    const olivia = await recovery.newPage();
    await olivia.goto('/dashboard/login');
    await olivia.getByLabel('E-mail').fill(ownerEmail);
    await olivia.getByRole('button', { name: 'Sign in with password (owners only)' }).click();
    await olivia.getByLabel('Password').fill(ownerPassword);
    await olivia.getByRole('button', { name: 'Sign in', exact: true }).click();
    await olivia.waitForURL(/\/dashboard\/emails/);
    t.pass('the owner signs in with her password while SSO is enforced');

    // The sign-ins list on the owner's page.
    await page.goto('/dashboard/team/sso');
    const signIns = page.getByRole('table', { name: 'Sign-ins with single sign-on, newest first' });
    await signIns.getByText('dana@northwind.test').waitFor();
    const text = await signIns.innerText();
    t.match(text, /Dana Doe\s+dana@northwind\.test\s+Joined the team/, 'the new person, joined');
    t.match(text, /Olivia Owner[\s\S]*Test/, 'the owner’s tests');
    await screenshot(page, 'sso-sign-ins');
    await assertAccessible(t, page, 'sso: sign-ins');

    // What the audit log recorded of it, on the Audit log page.
    await page.goto('/dashboard/audit-log');
    const audit = page.getByRole('table', { name: 'Audit log, newest first' });
    await audit.getByText('sso.password_bypass').waitFor();
    const recorded = await audit.innerText();
    const actions = ['configured', 'sign_in_failed', 'tested', 'activated', 'enforced', 'member_joined', 'signed_in'];
    for (const action of actions.map((verb) => `sso.${verb}`))
      t.match(recorded, new RegExp(action.replace('.', '\\.')), `the audit log has ${action}`);
    await screenshot(page, 'sso-audit-log');
    await page.goto('/dashboard/team/sso');
    await page.getByRole('heading', { level: 1, name: 'Single sign-on' }).waitFor();

    // Removing asks first.
    await page.getByRole('button', { name: 'Remove single sign-on' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove single sign-on?' });
    await dialog.waitFor();
    await screenshot(page, 'sso-remove-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    t.match(await getSso(), { status: 'active' }, 'cancel keeps it');
  });

  t.test(
    'a plan without SSO is explained before anything is asked; a member reads who sets it up; a failed callback in words',
    async (t) => {
      const team = await app.createTeam('Smallco', 'free');
      await markedVerifiedDomain(app, team.teamId, 'smallco.test');
      const d = await openDashboard(app);
      t.teardown(() => d.close());
      const { page } = d;
      await useCookie(d.context, await sessionInTeam(app, 'sam@smallco.test', team.teamId, 'owner'));
      await page.goto('/dashboard/team/sso');
      // The team's plan says so before anything is filled in: no form that saving would refuse.
      const refusal = page.getByRole('alert').filter({ hasText: 'The team’s plan does not include single sign-on.' });
      await refusal.waitFor();
      t.ok(await refusal.getByRole('link', { name: 'Billing' }).isVisible(), 'where a plan is chosen');
      t.equal(await page.getByRole('form', { name: 'Identity provider settings' }).count(), 0, 'nothing asked for');
      await screenshot(page, 'sso-plan-refusal');
      await assertAccessible(t, page, 'sso: plan refusal');

      const member = await d.browser.newContext({ baseURL: app.url, viewport: { width: 1280, height: 860 } });
      t.teardown(() => member.close());
      await useCookie(member, await sessionInTeam(app, 'max@smallco.test', team.teamId, 'member'));
      const memberPage = await member.newPage();
      const refused: string[] = [];
      memberPage.on('response', (r) => void (r.status() === 403 && refused.push(r.url())));
      await memberPage.goto('/dashboard/team/sso');
      await memberPage.getByText('Only a team owner or admin can set up single sign-on.').waitFor();
      await screenshot(memberPage, 'sso-member');
      await assertAccessible(t, memberPage, 'sso: member');
      t.same(refused, [], 'nothing refused to the member');

      const anonymous = await d.browser.newContext({ baseURL: app.url, viewport: { width: 1280, height: 860 } });
      t.teardown(() => anonymous.close());
      const login = await anonymous.newPage();
      await login.goto('/dashboard/login?sso_error=domain_not_covered');
      const alert = login.getByRole('alert').filter({ hasText: 'Single sign-on did not work.' });
      await alert.waitFor();
      t.match(await alert.innerText(), /not on a domain that single sign-on covers/, 'the code in words');
      await screenshot(login, 'login-sso-error');
      await assertAccessible(t, login, 'sign-in: SSO error');
    },
  );
}
