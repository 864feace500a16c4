import type { BrowserContext, Page } from 'playwright-core';
import t from 'tap';
import { asBrowser, sessionInTeam } from '../helpers/accounts.js';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot } from '../helpers/dashboard.js';
import { request } from '../helpers/http.js';
import { createOperator } from '../helpers/operator.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * The Audit log page against a real appliance: audited actions done through the API (API keys
 * created with the team's key, a domain added, a member invited from the owner's session) are
 * read on /audit-log as an owner, paged with Newer/Older (20 a page, never a count), filtered by
 * actor type, action and date (each in the URL, as GET /audit-logs takes them), and one entry is
 * opened in its dialog (GET /audit-logs/:id). A member sees no navigation entry and an
 * explanation, never a 403. The operator's page lists every team's entries, filters to a team,
 * and is reached filtered from the team's page.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const app = await startTestApp();
  t.teardown(() => app.close());

  const useCookie = async (context: BrowserContext, cookie: string) => {
    const value = cookie.split('=')[1]!;
    await context.addCookies([{ name: 'mailroom_session', value, url: app.url, httpOnly: true, sameSite: 'Lax' }]);
  };
  const rows = (page: Page) => page.getByRole('table', { name: 'Audit log, newest first' }).locator('tbody tr');
  /**
   * Until the table shows `count` rows (polled from here: the dashboard's policy forbids the
   * in-page eval that waitForFunction's polling of a string needs).
   */
  const waitForRows = async (page: Page, count: number) => {
    for (let i = 0; i < 100; i++) {
      if ((await rows(page).count()) === count && (await page.locator('[aria-busy=true]').count()) === 0) return;
      await page.waitForTimeout(100);
    }
    throw new Error(`the table never showed ${count} rows (it shows ${await rows(page).count()})`);
  };

  t.test('an owner reads, pages, filters and opens the audit log; a member is told why not', async (t) => {
    const team = await app.createTeam('Ledger Co');
    const ownerEmail = `owner-${Math.random().toString(36).slice(2, 8)}@example.test`;
    const ownerCookie = await sessionInTeam(app, ownerEmail, team.teamId, 'owner');
    const api = (method: string, path: string, body?: unknown) =>
      request(app.url, path, { method, token: team.token, body });

    // 21 keys (one more than a page), a domain, an invitation from the owner's session.
    for (let i = 1; i <= 21; i++) {
      const created = await api('POST', '/api-keys', { name: `key-${String(i).padStart(2, '0')}` });
      t.equal(created.status, 201, `key ${i} created`);
    }
    const domain = await api('POST', '/domains', { name: 'ledger-mail.test' });
    t.equal(domain.status, 201, 'domain added');
    const invitee = `carol-${Math.random().toString(36).slice(2, 6)}@example.test`;
    const invited = await asBrowser(app, '/auth/invitations', ownerCookie, {
      method: 'POST',
      body: { email: invitee, role: 'member' },
    });
    t.equal(invited.status, 201, 'invitation sent');

    // What the API recorded: the test reads the action names rather than assuming them.
    const all = await api('GET', '/audit-logs?limit=100');
    t.equal(all.status, 200, 'the audit log is readable with the key');
    const entries = all.body.data as {
      id: string;
      action: string;
      actor: { type: string };
      resource: { type: string };
    }[];
    t.equal(entries.filter((e) => e.action === 'api_key.created').length, 21, 'each key creation is recorded');
    const domainEntry = entries.find((e) => e.resource.type === 'domain');
    const inviteEntry = entries.find((e) => e.actor.type === 'user');
    t.ok(domainEntry, `the domain is recorded (${entries.map((e) => e.action).join(', ')})`);
    t.ok(inviteEntry, 'the invitation is recorded with the person as actor');

    const d = await openDashboard(app);
    t.teardown(() => d.close());
    const { page } = d;
    await useCookie(d.context, ownerCookie);
    await page.goto('/dashboard/emails');
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    await nav.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    t.equal(await nav.getByRole('link', { name: 'Audit log' }).getAttribute('aria-current'), 'page', 'nav marks it');

    // The first page: 20 entries, newest first (the invitation, then the domain, then keys).
    await rows(page).first().waitFor();
    t.equal(await rows(page).count(), 20, 'a page holds 20 entries');
    const first = await rows(page).first().innerText();
    t.match(first, new RegExp(`${inviteEntry!.action}`), 'the newest entry first');
    t.match(first, new RegExp(ownerEmail), 'the actor is the person, by address');
    t.match(first, /Person/, 'with the actor type');
    t.match(await rows(page).nth(1).innerText(), /domain/, 'then the domain');
    t.match(await rows(page).nth(2).innerText(), /api_key\.created[\s\S]*name: key-21/, 'then the keys, with details');
    const newer = page.getByRole('button', { name: '← Newer' });
    const older = page.getByRole('button', { name: 'Older →' });
    t.ok(await newer.isDisabled(), 'nothing newer on the first page');
    await screenshot(page, 'audit-log');
    await assertAccessible(t, page, 'audit log');

    // Paging: the older page holds the three first keys, then back.
    await older.click();
    await waitForRows(page, 3);
    const olderText = await page.getByRole('table', { name: 'Audit log, newest first' }).innerText();
    t.match(olderText, /key-03[\s\S]*key-02[\s\S]*key-01/, 'the oldest keys on the older page, newest first');
    t.ok(await older.isDisabled(), 'nothing older');
    await screenshot(page, 'audit-log-older');
    await newer.click();
    await waitForRows(page, 20);
    t.ok(await newer.isDisabled(), 'back on the first page');

    // Filter by actor type: the person's entries only.
    const filters = page.getByRole('form', { name: 'Filter the audit log' });
    await filters.getByLabel('Actor').selectOption('user');
    await page.waitForURL(/actor_type=user/);
    await waitForRows(page, 1);
    t.match(await rows(page).first().innerText(), new RegExp(invitee.replace(/[.]/g, '.') + '|' + inviteEntry!.action));
    await filters.getByLabel('Actor').selectOption('');

    // Filter by action (typed, applied with the button).
    await filters.getByLabel('Action').fill(domainEntry!.action);
    await filters.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(new RegExp(`action=${domainEntry!.action.replace('.', '\\.')}`));
    await waitForRows(page, 1);
    t.match(await rows(page).first().innerText(), /ledger-mail\.test/, 'the domain entry names the domain');
    await screenshot(page, 'audit-log-filtered');

    // The entry's detail, in a dialog linked in the URL.
    await rows(page)
      .first()
      .getByRole('button', { name: /^Open / })
      .click();
    const dialog = page.getByRole('dialog', { name: `Audit entry: ${domainEntry!.action}` });
    await dialog.waitFor();
    await page.waitForURL(new RegExp(`entry=${domainEntry!.id}`));
    const detail = await dialog.innerText();
    t.match(detail, /API key/, 'the actor type');
    t.match(detail, /test key/, 'the key by name');
    t.match(detail, /mailroom-tests\/1\.0/, 'the user agent of the request');
    t.match(detail, /127\.0\.0\.1/, 'the IP of the request');
    t.match(detail, /ledger-mail\.test/, 'the details');
    t.match(detail, new RegExp(domainEntry!.id), 'the entry id');
    await screenshot(page, 'audit-log-entry');
    await assertAccessible(t, page, 'audit log: entry');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
    t.notMatch(page.url(), /entry=/, 'closing takes the entry off the URL');

    // A date range with nothing in it.
    await filters.getByRole('button', { name: 'Clear filters' }).click();
    await waitForRows(page, 20);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await filters.getByLabel('From (UTC)').fill(tomorrow);
    await page.waitForURL(new RegExp(`start_date=${tomorrow}`));
    await page.getByText('No entry matches these filters').waitFor();
    const today = new Date().toISOString().slice(0, 10);
    await filters.getByLabel('From (UTC)').fill(today);
    await filters.getByLabel('To (UTC)').fill(today);
    await waitForRows(page, 20);
    t.pass('today’s range holds the entries');
    t.same(d.errors, [], 'no page errors for the owner');

    // A member: no navigation entry, an explanation, no request refused.
    const member = await d.browser.newContext({ baseURL: app.url, viewport: { width: 1280, height: 860 } });
    t.teardown(() => member.close());
    await useCookie(member, await sessionInTeam(app, `member-${Date.now()}@example.test`, team.teamId, 'member'));
    const memberPage = await member.newPage();
    const refused: string[] = [];
    memberPage.on('response', (r) => void (r.status() === 403 && refused.push(r.url())));
    await memberPage.goto('/dashboard/team');
    await memberPage.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
    await memberPage.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Team' }).waitFor();
    t.equal(
      await memberPage.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Audit log' }).count(),
      0,
      'no Audit log entry for a member',
    );
    await memberPage.goto('/dashboard/audit-log');
    await memberPage.getByText('Only a team owner or admin can read the audit log').waitFor();
    await screenshot(memberPage, 'audit-log-member');
    await assertAccessible(t, memberPage, 'audit log: member');
    t.same(refused, [], 'nothing was refused to the member');
  });

  t.test('the operator reads every team’s audit log and one team’s from its page', async (t) => {
    const one = await app.createTeam('Operator Alpha');
    const two = await app.createTeam('Operator Beta');
    await request(app.url, '/api-keys', { method: 'POST', token: one.token, body: { name: 'alpha-key' } });
    await request(app.url, '/api-keys', { method: 'POST', token: two.token, body: { name: 'beta-key' } });
    const operator = await createOperator(app, { name: 'Olga Operator' });
    const d = await openDashboard(app);
    t.teardown(() => d.close());
    const { page } = d;
    await useCookie(d.context, operator.cookie);
    await page.goto('/dashboard/admin/queue');
    const nav = page.getByRole('navigation', { name: 'Operator console' });
    await nav.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const table = page.getByRole('table', { name: 'Audit log, newest first' });
    await table.getByText('beta-key').waitFor();
    t.match(await table.innerText(), /Operator Beta[\s\S]*Operator Alpha/, 'entries of every team, with its name');
    await screenshot(page, 'admin-audit-log');
    await assertAccessible(t, page, 'admin audit log');

    const filters = page.getByRole('form', { name: 'Filter the audit log' });
    await filters.getByLabel('Team').selectOption({ label: 'Operator Alpha' });
    await page.waitForURL(new RegExp(`team_id=${one.teamId}`));
    await table.getByText('beta-key').waitFor({ state: 'detached' });
    t.match(await table.innerText(), /alpha-key/, 'the chosen team only');

    // From the team's page, filtered to it.
    await page.goto(`/dashboard/admin/teams/${two.teamId}`);
    await page.getByRole('heading', { level: 1, name: 'Operator Beta' }).waitFor();
    await page.getByRole('link', { name: 'Open this team’s audit log' }).click();
    await page.waitForURL(new RegExp(`/admin/audit-log\\?team_id=${two.teamId}`));
    await table.getByText('beta-key').waitFor();
    t.equal(await filters.getByLabel('Team').inputValue(), two.teamId, 'the team filter is set');
    t.notMatch(await table.innerText(), /alpha-key/, 'no other team');
    await table
      .getByRole('button', { name: /^Open / })
      .first()
      .click();
    const dialog = page.getByRole('dialog', { name: /^Audit entry: api_key\.created/ });
    await dialog.waitFor();
    t.match(await dialog.innerText(), new RegExp(two.teamId), 'the entry names its team');
    await screenshot(page, 'admin-audit-log-entry');
    t.same(d.errors, [], 'no page errors for the operator');
  });
}
