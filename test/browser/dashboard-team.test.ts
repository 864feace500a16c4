import t from 'tap';
import type { Page } from 'playwright-core';
import { captureAccountLinks } from '../helpers/accounts.js';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot, signInByCookie } from '../helpers/dashboard.js';
import { request } from '../helpers/http.js';
import { png } from '../helpers/images.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * The Team page as an owner (rename, postal address with a refused value first, a logo upload,
 * an invitation) and then as the member that invitation brought in: the accept page shows the
 * team and role, and in the member's session the owner-only actions are disabled with the reason,
 * without a single 403 from the API.
 */
const skipped = browserSkipReason();
const REASON = 'Only a team owner or admin can do this. Ask one of them.';

if (skipped) {
  t.plan(0, skipped);
} else {
  const app = await startTestApp();
  const links = captureAccountLinks(app);
  t.teardown(async () => {
    links.restore();
    await app.close();
  });

  const openTab = async (page: Page, name: string) => {
    await page.getByRole('tab', { name }).click();
    await page.getByRole('tab', { name, selected: true }).waitFor();
  };

  t.test('an owner sets the team up and invites a member, who sees owner actions disabled', async (t) => {
    const team = await app.createTeam('Acme');
    const getTeam = async () => (await request(app.url, '/team', { token: team.token })).body;
    const d = await openDashboard(app);
    t.teardown(() => d.close());
    const { page } = d;
    await signInByCookie(app, d.context, team.teamId, { role: 'owner' });
    await page.goto('/dashboard/team');
    await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();

    // Rename (owner).
    await page.getByLabel('Team name').fill('Acme Mail');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByText('Team renamed').waitFor();
    t.equal((await getTeam()).name, 'Acme Mail', 'the team is renamed');
    await page.locator('.team-name', { hasText: 'Acme Mail' }).waitFor();

    // The postal address: a country the API refuses is marked on its field, then a good one.
    const identity = page.getByRole('form', { name: 'Sender identity' });
    await identity.getByLabel('Sender name').fill('Acme Mail team');
    await identity.getByLabel('Street address').fill('1 rue de la Paix');
    await identity.getByLabel('City').fill('Paris');
    await identity.getByLabel('Postal code').fill('75002');
    await identity.getByLabel('Country code').fill('France');
    await identity.getByRole('button', { name: 'Save sender identity' }).click();
    const country = identity.getByLabel('Country code');
    await identity.locator('.field-invalid').first().waitFor();
    t.equal(await country.getAttribute('aria-invalid'), 'true', 'the country field is marked');
    const countryError = identity.locator('.field-invalid .field-error');
    t.match(await countryError.innerText(), /ISO 3166-1 alpha-2/, 'the field says what the API wants');
    t.equal(await identity.locator('.field-invalid').count(), 1, 'only the country is marked');
    await screenshot(page, 'team-general-field-error');
    await country.fill('fr');
    t.equal(await country.inputValue(), 'FR', 'a country code is taken in capitals');
    await identity.getByRole('button', { name: 'Save sender identity' }).click();
    await page.getByText('Sender identity saved').waitFor();
    t.equal(await identity.locator('.field-invalid').count(), 0, 'no field is marked any more');
    const saved = await getTeam();
    t.match(saved.sender_identity, {
      sender_name: 'Acme Mail team',
      postal_address: { line1: '1 rue de la Paix', line2: null, city: 'Paris', postal_code: '75002', country: 'FR' },
    });

    // A logo: uploaded, put in the brand kit, shown.
    await page.getByLabel('Upload a logo').setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: png(48, 24),
    });
    await page.getByText('Logo saved').waitFor();
    const logo = page.getByRole('img', { name: 'Logo of Acme Mail' });
    await logo.waitFor();
    // A string expression: the tests compile without the DOM library (it would change Node's types).
    await page.waitForFunction(
      "(() => { const img = document.querySelector('.logo-preview img'); return img !== null && img.complete && img.naturalWidth > 0; })()",
    );
    const logoUrl = (await getTeam()).brand_kit.logo_url as string;
    t.match(logoUrl, /\/brand-assets\/[0-9a-f]{64}\.png$/, 'the uploaded file is the brand logo');
    t.equal(await logo.getAttribute('src'), logoUrl, 'the preview shows it');
    await screenshot(page, 'team-general');
    await assertAccessible(t, page, 'team: general');

    // Members.
    await openTab(page, 'Members');
    const members = page.getByRole('table', { name: 'Team members' });
    await members.waitFor();
    t.match(await members.innerText(), /Owner/, 'the owner is listed with the role');
    await screenshot(page, 'team-members');
    await assertAccessible(t, page, 'team: members');

    // Invitations: invite a member.
    const invitee = `bob-${Math.random().toString(36).slice(2, 6)}@example.test`;
    await openTab(page, 'Invitations');
    t.match(page.url(), /\?tab=invitations$/, 'the tab is in the URL');
    await page
      .getByRole('table', { name: 'Invitations of the last 30 days' })
      .or(page.getByText('No invitations'))
      .waitFor();
    const inviteForm = page.getByRole('form', { name: 'Invite someone' });
    await inviteForm.getByLabel('E-mail').fill(invitee);
    await inviteForm.getByLabel('Role').selectOption('member');
    await inviteForm.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation sent to ${invitee}`).waitFor();
    const invitations = page.getByRole('table', { name: 'Invitations of the last 30 days' });
    await invitations.getByText(invitee).waitFor();
    t.match(await invitations.innerText(), new RegExp(`${invitee}\\s+Member\\s+pending`), 'listed as pending');
    t.ok(await page.getByRole('button', { name: `Revoke the invitation to ${invitee}` }).isVisible(), 'revocable');
    await screenshot(page, 'team-invitations');
    await assertAccessible(t, page, 'team: invitations');

    // Connected apps (none) and the plan.
    await openTab(page, 'Connected apps');
    await page.getByText('No connected apps').waitFor();
    await screenshot(page, 'team-connected-apps');
    await assertAccessible(t, page, 'team: connected apps');
    await openTab(page, 'Plan');
    await page.getByText('Emails this month', { exact: true }).waitFor();
    t.match(
      await page.locator('.usage').first().innerText(),
      /Emails this month\s+0 of [\d,]+ /,
      'usage against the quota',
    );
    t.match(await page.getByRole('region', { name: /^Plan:/ }).innerText(), /Domains\s+Up to 1/);
    await screenshot(page, 'team-plan');
    await assertAccessible(t, page, 'team: plan');
    t.same(d.errors, [], 'no page errors for the owner');

    // The invited person opens the mailed link with no session.
    const token = links.last('invitation', invitee);
    const second = await d.browser.newContext({ baseURL: app.url, viewport: { width: 1280, height: 860 } });
    t.teardown(() => second.close());
    const memberPage = await second.newPage();
    const memberErrors: string[] = [];
    memberPage.on('pageerror', (err) => memberErrors.push(err.message));
    const refused: string[] = [];
    memberPage.on('response', (response) => {
      if (response.status() === 403) refused.push(`${response.request().method()} ${response.url()}`);
    });
    await memberPage.goto(`/dashboard/invitations/accept?token=${encodeURIComponent(token)}`);
    await memberPage.getByRole('heading', { name: 'Join Acme Mail' }).waitFor();
    t.match(
      await memberPage.locator('main, body').first().innerText(),
      /invited to the team Acme Mail as member/,
      'the accept page shows the team and the role',
    );
    await screenshot(memberPage, 'team-invitation-accept');
    await memberPage.getByLabel('Your name').fill('Bob Member');
    await memberPage.getByLabel('Password').fill('correct horse battery');
    await memberPage.getByRole('button', { name: 'Accept and join' }).click();
    await memberPage.waitForURL(/\/dashboard\/emails/);

    // As a member: rename and invite are disabled, with the reason, and nothing is refused.
    await memberPage.goto('/dashboard/team');
    await memberPage.getByText(REASON).waitFor();
    const rename = memberPage.getByRole('button', { name: 'Rename' });
    t.ok(await rename.isDisabled(), 'rename is disabled for a member');
    t.ok(await memberPage.getByText(REASON).isVisible(), 'the reason is shown');
    t.equal(await rename.getAttribute('aria-describedby'), await memberPage.getByText(REASON).getAttribute('id'));
    t.ok(await memberPage.getByLabel('Team name').isDisabled(), 'the name field too');
    t.equal(await memberPage.getByLabel('Team name').inputValue(), 'Acme Mail', 'the member sees the new name');
    await screenshot(memberPage, 'team-general-member');
    await assertAccessible(t, memberPage, 'team: general, member');

    await openTab(memberPage, 'Invitations');
    const send = memberPage.getByRole('button', { name: 'Send invitation' });
    await memberPage.getByText(REASON).waitFor();
    t.ok(await send.isDisabled(), 'inviting is disabled for a member');
    t.ok(await memberPage.getByText(REASON).isVisible(), 'with the reason');
    t.notOk(
      await memberPage.getByRole('table', { name: 'Invitations of the last 30 days' }).count(),
      'the list a member may not read is not asked for',
    );
    await screenshot(memberPage, 'team-invitations-member');
    await assertAccessible(t, memberPage, 'team: invitations, member');

    await openTab(memberPage, 'Members');
    await memberPage.getByRole('table', { name: 'Team members' }).getByText('Bob Member').waitFor();
    await openTab(memberPage, 'Plan');
    await memberPage.getByText('Emails this month', { exact: true }).waitFor();
    t.same(refused, [], 'no request of the member got a 403');
    t.same(memberErrors, [], 'no page errors for the member');
  });
}
