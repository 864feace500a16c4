import t from 'tap';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot, signInByCookie } from '../helpers/dashboard.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * The Domains and API keys pages in a real browser against a real appliance whose resolver asks
 * the test DNS server: a domain added in the page shows its records pending, turns verified
 * without a reload once they are published, and shows its health checks; an API key created in
 * the page works with the API until it is revoked there.
 */
const skipped = browserSkipReason();

type RecordOut = { record: string; name: string; type: string; value: string; priority?: number };

if (skipped) {
  t.plan(0, skipped);
} else {
  const dns = await TestDnsServer.start();
  const app = await startTestApp({
    env: { MAILROOM_DNS_SERVERS: dns.address },
    config: {
      mta: { hostname: 'mta.mailroom.test', regions: { 'us-east-1': { ips: ['192.0.2.10'] } } },
      inbound: { mxHost: 'mx.mailroom.test' },
      tracking: { host: 'track.mailroom.test' },
    },
  });
  t.teardown(async () => {
    await app.close();
    await dns.close();
  });

  /** Publishes the records the API asks for in the test zone (names are relative to it). */
  const publish = (records: RecordOut[], zone: string) => {
    for (const r of records) {
      const name = r.name === '@' ? zone : `${r.name}.${zone}`;
      if (r.type === 'TXT') dns.add({ type: 'TXT', name, value: r.value });
      if (r.type === 'MX') dns.add({ type: 'MX', name, exchange: r.value, priority: r.priority });
      if (r.type === 'CNAME') dns.add({ type: 'CNAME', name, value: r.value });
    }
  };

  t.test('add a domain, watch it verify live, read its health; create, use and revoke a key', async (t) => {
    const team = await app.createTeam('Domains UI', 'unlimited');
    dns.add({ type: 'SOA', name: 'journey.test' });
    const d = await openDashboard(app);
    t.teardown(d.close);
    const { page } = d;
    await signInByCookie(app, d.context, team.teamId);
    const verifyCalls: string[] = [];
    page.on('request', (req) => {
      if (req.method() === 'POST' && /\/api\/v1\/domains\/[^/]+\/verify$/.test(req.url())) verifyCalls.push(req.url());
    });

    // The list, empty, and the dialog that adds a domain.
    await page.goto('/dashboard/domains');
    await page.getByRole('heading', { level: 1, name: 'Domains' }).waitFor();
    await page.getByText('No domain yet').waitFor();
    await page.getByRole('button', { name: 'Add domain' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a domain' });
    // A refusal is told in words, on the field it is about.
    await dialog.getByLabel('Domain name').fill('co.uk');
    await dialog.getByRole('button', { name: 'Add domain' }).click();
    await dialog.getByRole('alert').first().waitFor();
    t.equal(await dialog.getByLabel('Domain name').getAttribute('aria-invalid'), 'true', 'the name is marked');
    t.match(await dialog.textContent(), /public suffix|cannot be added/i, 'the reason is shown');
    await dialog.getByLabel('Domain name').fill('mail.journey.test');
    await dialog.getByLabel('Region').selectOption('us-east-1');
    await dialog.getByLabel('Open tracking').check();
    await assertAccessible(t, page, 'add-domain dialog');
    await dialog.getByRole('button', { name: 'Add domain' }).click();

    // The domain's page: its records, pending, each with a copy button; checked live.
    await page.waitForURL(/\/dashboard\/domains\/[0-9a-f-]{36}$/);
    const domainId = page.url().split('/').at(-1)!;
    await page.getByRole('heading', { level: 1, name: 'mail.journey.test' }).waitFor();
    await page.getByText('Waiting for the DNS records below to appear.').waitFor({ timeout: 10_000 });
    const api = (await request(app.url, `/domains/${domainId}`, { token: team.token })).body as {
      status: string;
      records: RecordOut[];
    };
    t.equal(api.status, 'pending', 'the page started verification');
    const rows = page.getByRole('table', { name: 'DNS records of mail.journey.test' }).locator('tbody tr');
    t.equal(await rows.count(), api.records.length, 'every record the API asks for is listed');
    t.equal(
      await page.getByRole('button', { name: /^Copy value: / }).count(),
      api.records.length,
      'a copy button per record value',
    );
    const dkim = api.records.find((r) => r.record === 'DKIM')!;
    t.ok(
      await page.getByRole('button', { name: `Copy value: ${dkim.value.slice(0, 40)}` }).isVisible(),
      'the DKIM value has its own copy button',
    );
    t.ok(await page.getByText(/Checking every 5 s while this page is open/).isVisible(), 'the live check is told');
    t.ok(
      (await rows.allTextContents()).some((text) => /pending/.test(text)),
      'records are shown pending',
    );
    const zoneLink = page.getByRole('link', { name: 'Download zone file' });
    t.equal(await zoneLink.getAttribute('href'), `/api/v1/domains/${domainId}/zone`);
    t.equal(await zoneLink.getAttribute('download'), 'mail.journey.test.zone');
    await page.getByText('Show as a zone file').click();
    await page.locator('.zone-snippet pre').waitFor();
    t.match(await page.locator('.zone-snippet pre').textContent(), /_domainkey[\s\S]*TXT/, 'the zone snippet is shown');
    // The health checklist, from GET /domains/{id}/health, with what to do about each failure.
    const checks = page.getByRole('list', { name: 'Health checks' }).locator('li');
    await checks.first().waitFor();
    t.ok((await checks.count()) >= 3, 'the health checks are listed');
    t.match(await page.getByRole('list', { name: 'Health checks' }).textContent(), /SPF[\s\S]*How to fix/);
    await screenshot(page, 'domain-pending');
    await assertAccessible(t, page, 'domain page, pending');

    // Publish the records; the page turns verified by itself (no reload: the marker stays).
    await page.evaluate(() => {
      (globalThis as unknown as { notReloaded?: boolean }).notReloaded = true;
    });
    const checksBefore = verifyCalls.length;
    publish(api.records, 'journey.test');
    await page.getByText('Verified: mail from this domain').waitFor({ timeout: 20_000 });
    t.ok(
      await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded === true),
      'the page was not reloaded',
    );
    t.ok(verifyCalls.length > checksBefore, 'the page asked the API to verify again');
    const dkimRow = rows.filter({ hasText: 'DKIM' });
    await dkimRow.getByText('verified').waitFor();
    t.equal(
      (await request(app.url, `/domains/${domainId}`, { token: team.token })).body.status,
      'verified',
      'the API agrees',
    );
    const after = verifyCalls.length;
    await page.waitForTimeout(5_500);
    t.equal(verifyCalls.length, after, 'a verified domain is no longer checked from the page');
    await screenshot(page, 'domain-verified');
    await assertAccessible(t, page, 'domain page, verified');

    // Back to the list: the domain with its status, region and age.
    await page.getByRole('link', { name: '← Domains' }).click();
    const listRow = page.getByRole('table', { name: 'Domains' }).locator('tbody tr', { hasText: 'mail.journey.test' });
    await listRow.waitFor();
    t.match(await listRow.textContent(), /verified[\s\S]*us-east-1/);
    await screenshot(page, 'domains-list');
    await assertAccessible(t, page, 'domains list');

    // API keys: create one, read its token once, use it, revoke it, see it refused.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const create = page.getByRole('dialog', { name: 'Create an API key' });
    await create.getByLabel('Name').fill('Journey key');
    await create.getByLabel('Permission').selectOption('full_access');
    await create.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('dialog', { name: 'Your new API key' });
    await shown.waitFor();
    t.match(await shown.textContent(), /you will not see it again/);
    const token = (await shown.getByTestId('api-key-token').textContent())!.trim();
    t.ok(token.length > 20, 'the token is shown');
    t.ok(await shown.getByRole('button', { name: /^Copy the key/ }).isVisible(), 'with a copy button');
    await screenshot(page, 'api-keys-token');
    await assertAccessible(t, page, 'api keys, token dialog');
    const withKey = await request(app.url, '/domains', { token });
    t.equal(withKey.status, 200, 'the new key works');
    t.equal(withKey.body.data[0].name, 'mail.journey.test');

    await shown.getByRole('button', { name: 'I have saved it' }).click();
    const keyRow = page.getByRole('table', { name: 'API keys' }).locator('tbody tr', { hasText: 'Journey key' });
    await keyRow.waitFor();
    t.match(await keyRow.textContent(), /Full access/);
    t.notMatch(await page.locator('main').textContent(), token, 'the token is not shown again');
    await screenshot(page, 'api-keys');
    await assertAccessible(t, page, 'api keys list');

    // The key made in the page sends through the API from the domain verified above (to the
    // mailbox simulator: the team is in the sandbox), and the
    // email is in the list (no MTA runs here, so it stays queued; dashboard-emails.test.ts follows
    // one to delivered with its transcript).
    const sent = await request(app.url, '/emails', {
      method: 'POST',
      token,
      body: {
        from: 'Journey <hello@mail.journey.test>',
        to: 'delivered@simulator.mailroom.localhost',
        subject: 'Sent with the new key',
        text: 'Hi',
      },
    });
    t.equal(sent.status, 200, `the new key sends: ${sent.text}`);
    await page.getByRole('link', { name: 'Emails', exact: true }).click();
    const emailLink = page.getByRole('link', { name: 'delivered@simulator.mailroom.localhost' });
    await emailLink.waitFor();
    t.match(await page.locator('main tbody').textContent(), 'Sent with the new key', 'the email is in the list');
    await emailLink.click();
    await page.getByRole('heading', { level: 1, name: 'Sent with the new key' }).waitFor();
    t.match(page.url(), new RegExp(`/dashboard/emails/${sent.body.id}$`), 'its page');
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await keyRow.waitFor();
    await keyRow.getByRole('button', { name: 'Revoke Journey key' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke the key Journey key?' });
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await keyRow.waitFor({ state: 'detached' });
    // Revoked keys are answered 403 restricted_api_key (api-key.service authenticate), not 401.
    const refused = await request(app.url, '/domains', { token });
    t.equal(refused.status, 403, 'the revoked key is refused');
    t.equal(refused.body.name, 'restricted_api_key');
    await page.getByLabel('Status').selectOption('revoked');
    await page.waitForURL(/status=revoked/);
    await keyRow.waitFor();
    t.match(await keyRow.textContent(), /revoked/, 'listed as revoked under the filter');

    // A sending key pinned to the verified domain: the list names the domain.
    await page.getByLabel('Status').selectOption('');
    await page.getByRole('button', { name: 'Create API key' }).click();
    await create.getByLabel('Name').fill('Pinned key');
    await create.getByLabel('Permission').selectOption('sending_access');
    await create.getByLabel('Domain').selectOption({ label: 'mail.journey.test' });
    await create.getByRole('button', { name: 'Create key' }).click();
    await shown.getByRole('button', { name: 'I have saved it' }).click();
    const pinned = page.getByRole('table', { name: 'API keys' }).locator('tbody tr', { hasText: 'Pinned key' });
    await pinned.waitFor();
    t.match(await pinned.textContent(), /Sending access[\s\S]*mail\.journey\.test/, 'pinned to the domain, by name');
    const keys = (await request(app.url, '/api-keys', { token: team.token })).body.data as {
      name: string;
      domain_id: string;
    }[];
    t.equal(keys.find((k) => k.name === 'Pinned key')?.domain_id, domainId, 'the API holds the pin');

    t.same(d.errors, [], 'no page error');
  });

  t.test('settings, auto-configure refused in words, DKIM rotation and delete behind confirmations', async (t) => {
    const team = await app.createTeam('Domain actions', 'unlimited');
    dns.add({ type: 'SOA', name: 'actions.test' });
    const created = await request(app.url, '/domains', {
      method: 'POST',
      token: team.token,
      body: { name: 'actions.test' },
    });
    t.equal(created.status, 201, created.text);
    const id: string = created.body.id;
    const d = await openDashboard(app);
    t.teardown(d.close);
    const { page } = d;
    await signInByCookie(app, d.context, team.teamId, { role: 'member' });
    await page.goto(`/dashboard/domains/${id}`);
    await page.getByRole('heading', { level: 1, name: 'actions.test' }).waitFor();

    // A toggle saves at once (PATCH) and the API holds the change.
    await page.getByLabel('Click tracking').check();
    await page.getByText('Domain settings saved').waitFor();
    const got = async () => (await request(app.url, `/domains/${id}`, { token: team.token })).body;
    t.equal((await got()).click_tracking, true, 'click tracking is on');

    // No DNS UPDATE zone is configured here: the refusal is explained, not a raw error.
    await page.getByRole('button', { name: 'Publish the records automatically' }).click();
    await page.getByText('no DNS UPDATE zone is configured for it').waitFor();

    // DKIM rotation: the confirmation explains, then a second DKIM record appears.
    const dkimBefore = (await got()).records.filter((r: RecordOut) => r.record === 'DKIM').length;
    await page.getByRole('button', { name: 'Rotate the DKIM key' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the DKIM key?' });
    t.match(await rotate.textContent(), /current key keeps signing until the new record is found/);
    await rotate.getByRole('button', { name: 'Create the new key' }).click();
    await rotate.waitFor({ state: 'hidden' });
    const rows = page.getByRole('table', { name: 'DNS records of actions.test' }).locator('tbody tr');
    await rows.filter({ hasText: 'DKIM' }).nth(dkimBefore).waitFor();
    t.equal(await rows.filter({ hasText: 'DKIM' }).count(), dkimBefore + 1, 'the new key is listed with its record');
    await assertAccessible(t, page, 'domain page after rotation');

    // Delete: the button stays off until the name is typed.
    await page.getByRole('button', { name: 'Delete domain' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete actions.test?' });
    const del = confirm.getByRole('button', { name: 'Delete domain' });
    t.ok(await del.isDisabled(), 'not before the name is typed');
    await confirm.getByLabel('Type actions.test to confirm').fill('actions.tes');
    t.ok(await del.isDisabled(), 'not with a wrong name');
    await confirm.getByLabel('Type actions.test to confirm').fill('actions.test');
    await del.click();
    await page.waitForURL(/\/dashboard\/domains$/);
    await page.getByText('No domain yet').waitFor();
    t.equal((await request(app.url, `/domains/${id}`, { token: team.token })).status, 404, 'the domain is gone');
    t.same(d.errors, [], 'no page error');
  });
}
