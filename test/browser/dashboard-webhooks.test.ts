import type { Page } from 'playwright-core';
import t from 'tap';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot, signInByCookie } from '../helpers/dashboard.js';
import { request } from '../helpers/http.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';
import { startWebhookApp, WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * The Webhooks, Logs and Suppressions pages in a real browser against a real appliance, with a
 * real HTTP receiver on loopback and a delivery worker running: a delivery that fails (500) is
 * seen with its attempts, replayed once the receiver is back (200), and the signing secret is
 * revealed and rotated; the logs show the requests made with the team's key; a suppression is
 * added, found and removed.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const receiver = await WebhookReceiver.start();
  receiver.status = 500;
  receiver.responseBody = 'receiver under maintenance';
  // One quick retry: a delivery fails for good after two attempts, within a couple of seconds.
  const fx = await startWebhookApp({ webhooks: { retrySchedule: [1] } });
  const { app, team } = fx;
  const d = await openDashboard(app);
  const page: Page = d.page;
  t.teardown(async () => {
    await d.close();
    await fx.close();
    await receiver.down();
  });
  await signInByCookie(app, d.context, team.teamId);
  const api = (path: string, options: { method?: string; body?: unknown } = {}) =>
    request(app.url, path, { ...options, token: team.token });
  const WAIT = { timeout: 20_000 };
  /** The email the logs test sends: the suppressions test names it as a bounce's cause. */
  let sentEmailId = '';

  t.test('webhooks: create an endpoint, see a failed delivery, replay it, reveal and rotate the secret', async (t) => {
    await page.goto('/dashboard/webhooks');
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No endpoints yet').waitFor();
    await assertAccessible(t, page, 'webhooks list (empty)');

    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.url());
    await page.getByRole('checkbox', { name: 'suppression.added' }).check();
    t.ok(await page.getByRole('checkbox', { name: 'email.delivered' }).isChecked(), 'a sensible default is chosen');
    await shot(page, 'webhooks-create');
    await assertAccessible(t, page, 'webhooks create form');
    await page
      .getByRole('form', { name: 'Add a webhook endpoint' })
      .getByRole('button', { name: 'Add endpoint' })
      .click();

    await page.waitForURL(/\/dashboard\/webhooks\/[0-9a-f-]{36}$/, WAIT);
    const id = page.url().split('/').at(-1)!;
    await page.getByRole('heading', { level: 1, name: 'Webhook endpoint' }).waitFor();
    const created = await api(`/webhooks/${id}`);
    t.equal(created.body.endpoint, receiver.url(), 'the endpoint was created with the URL typed');
    t.same(
      created.body.events,
      ['email.delivered', 'email.bounced', 'email.complained', 'suppression.added'],
      'with the events ticked',
    );
    t.ok(await page.getByText('Nothing sent yet').isVisible(), 'no delivery yet');

    // A test event, sent from the page; the receiver answers 500 to both attempts.
    await page.getByLabel('Test event type').selectOption('suppression.added');
    await page.getByRole('button', { name: 'Send test event' }).click();
    const delivery = page.getByRole('region', { name: /^Delivery/ });
    await delivery.getByText('failed', { exact: true }).waitFor(WAIT);
    t.ok(receiver.received.length >= 2, 'the receiver saw the first attempt and the retry');
    t.equal(JSON.parse(receiver.received[0]!.body).data.test, true, 'the test event is marked as one');
    const attempts = delivery.getByRole('table', { name: /Attempts/ });
    // The failed status may show before the attempts list has fetched the second attempt.
    await attempts.getByText('HTTP 500').nth(1).waitFor(WAIT);
    t.equal(await attempts.getByText('HTTP 500').count(), 2, 'both attempts are listed with their status code');
    t.equal(await attempts.getByText('receiver under maintenance').count(), 2, 'with the start of the answer');
    const deliveries = page.getByRole('table', { name: 'Events sent to this endpoint' });
    await deliveries.getByText('failed', { exact: true }).waitFor(WAIT);
    t.ok(await deliveries.getByText('suppression.added').isVisible(), 'the delivery list names the event type');
    await shot(page, 'webhook-delivery-failed');
    await assertAccessible(t, page, 'webhook page with a failed delivery');

    // The receiver is back: Replay gives a successful third attempt.
    receiver.status = 200;
    receiver.responseBody = 'thanks';
    await delivery.getByRole('button', { name: 'Replay' }).click();
    await attempts.getByText('HTTP 200').waitFor(WAIT);
    await delivery.getByText('success', { exact: true }).waitFor(WAIT);
    t.ok(await attempts.getByText('thanks').isVisible(), 'the successful answer is shown');
    await deliveries.getByText('success', { exact: true }).waitFor(WAIT);
    const events = await api(`/webhooks/${id}/events`);
    t.equal(events.body.data[0].status, 'success', 'the API agrees: the delivery succeeded');
    await shot(page, 'webhook-delivery-replayed');

    // The secret: hidden until asked, then rotated (the old one keeps signing for a while).
    t.equal(await page.locator('.secret-value').count(), 0, 'the secret is hidden at first');
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    const shown = page.locator('.secret-value');
    await shown.waitFor();
    const before = await shown.textContent();
    t.equal(before, created.body.signing_secret, 'the revealed secret is the endpoint’s');
    await page.getByRole('region', { name: 'Signing secret' }).getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    t.match(await dialog.textContent(), /keeps signing beside it for a grace period/, 'the grace period is explained');
    await dialog.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText(/The previous secret keeps signing beside this one until/).waitFor();
    const after = await shown.textContent();
    t.not(after, before, 'a new secret is shown');
    const secret = await api(`/webhooks/${id}/signing-secret`);
    t.equal(after, secret.body.signing_secret, 'it is the one the API now signs with');
    t.ok(secret.body.previous_signing_secret_expires_at, 'the previous one is in its grace period');
    await shot(page, 'webhook-secret-rotated');
    await assertAccessible(t, page, 'webhook page with the secret shown');

    // Disable (asks first), enable again.
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog', { name: 'Disable this endpoint?' }).getByRole('button', { name: 'Disable' }).click();
    await page.getByText('This endpoint is disabled').waitFor();
    t.equal((await api(`/webhooks/${id}`)).body.status, 'disabled', 'disabled through the API');
    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    await page.getByText('This endpoint is disabled').waitFor({ state: 'detached' });
    t.equal((await api(`/webhooks/${id}`)).body.status, 'enabled', 'enabled again');

    // The list shows it; a second endpoint is deleted from its page.
    await page.getByRole('link', { name: 'Webhooks' }).first().click();
    const listed = page.getByRole('table', { name: 'Webhook endpoints' });
    await listed.getByRole('link', { name: receiver.url() }).waitFor();
    await shot(page, 'webhooks-list');
    await assertAccessible(t, page, 'webhooks list');
    const other = await fx.createEndpoint(receiver.url('/other'), ['domain.created']);
    await page.goto(`/dashboard/webhooks/${other.id}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: 'Delete this endpoint?' })
      .getByRole('button', { name: 'Delete endpoint' })
      .click();
    await page.waitForURL(/\/dashboard\/webhooks$/, WAIT);
    t.equal((await api(`/webhooks/${other.id}`)).status, 404, 'the second endpoint is gone');

    t.same(d.errors, [], 'no page errors');
  });

  t.test('logs: the requests made with the key, filtered by status, and one request in full', async (t) => {
    const domain = `logs-${Math.random().toString(36).slice(2, 6)}.test`;
    await markedVerifiedDomain(app, team.teamId, domain);
    const refused = await api('/suppressions', { method: 'POST', body: { email: 'not-an-address' } });
    t.ok(refused.status >= 400 && refused.status < 500, `a refused request (${refused.status})`);
    const sent = await api('/emails', {
      method: 'POST',
      body: { from: `hello@${domain}`, to: 'reader@example.net', subject: 'Logged', text: 'Hi' },
    });
    t.equal(sent.status, 200, 'an email sent with the key');
    sentEmailId = sent.body.id;

    await page.goto('/dashboard/logs');
    await page.getByRole('heading', { level: 1, name: 'Logs' }).waitFor();
    const table = page.getByRole('table', { name: /Request logs/ });
    await table.getByRole('link', { name: '/emails' }).first().waitFor();
    await page.getByLabel('API key').selectOption({ label: 'test key' });
    await page.waitForURL(/api_key_id=/);
    await page.getByLabel('Status').fill('4xx');
    await page.getByLabel('Status').press('Enter');
    await page.waitForURL(/status=4xx/);
    await table.getByRole('link', { name: '/suppressions' }).first().waitFor();
    // The previous page stays on screen while the filtered one loads: wait for the filtered one.
    const statusCells = table.locator('tbody tr td:nth-child(4)');
    const only4xx = await until(async () => {
      const statuses = await statusCells.allTextContents();
      return statuses.length > 0 && statuses.every((status) => /^4\d\d$/.test(status.trim()));
    });
    t.ok(only4xx, `only 4xx answers are listed (${(await statusCells.allTextContents()).join(', ')})`);
    t.ok(
      (await table.locator('tbody tr td:nth-child(7)').allTextContents()).every((name) => name === 'test key'),
      'each made with the key, named',
    );
    await shot(page, 'logs-list-4xx');
    await assertAccessible(t, page, 'logs list');

    await table.getByRole('link', { name: '/suppressions' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'POST /suppressions' }).waitFor();
    t.match(
      await page.getByRole('region', { name: 'Request body (JSON)' }).textContent(),
      /not-an-address/,
      'the request body is shown',
    );
    t.match(
      await page.getByRole('region', { name: 'Response body (JSON)' }).textContent(),
      /"name"/,
      'and the error it answered',
    );
    t.ok(await page.getByText(mailroomRequestId(refused.headers)).isVisible(), 'the request id is shown');
    await shot(page, 'log-detail-refused');
    await assertAccessible(t, page, 'log page');

    // The email's request links to the email it created.
    await page.goto(`/dashboard/logs?path=/emails&method=POST`);
    await table.getByRole('link', { name: '/emails' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'POST /emails' }).waitFor();
    const link = page.getByRole('link', { name: 'Open the email this request created' });
    t.equal(await link.getAttribute('href'), `/dashboard/emails/${sent.body.id}`, 'the log links to the email');
    await shot(page, 'log-detail-email');

    t.same(d.errors, [], 'no page errors');
  });

  t.test('suppressions: add an address, find it, remove it', async (t) => {
    const address = `blocked-${Math.random().toString(36).slice(2, 8)}@example.org`;
    t.equal((await api('/suppressions', { method: 'POST', body: { email: 'other@example.org' } })).status, 201);
    // A hard bounce of the email sent above, as the bounce handling records it.
    await app.runtime.services.suppressions.add(team.teamId, 'gone@example.net', 'bounce', sentEmailId);
    await page.goto('/dashboard/suppressions');
    await page.getByRole('heading', { level: 1, name: 'Suppressions' }).waitFor();
    const bounced = page.getByRole('row', { name: /gone@example\.net/ });
    t.equal(
      await bounced.getByRole('link', { name: 'The email that suppressed gone@example.net' }).getAttribute('href'),
      `/dashboard/emails/${sentEmailId}`,
      'a bounce links to the email that caused it',
    );
    t.ok(await bounced.getByText('hard bounce').isVisible(), 'with its origin in words');
    await shot(page, 'suppressions-list');
    await page.getByLabel('Address to suppress').fill(address);
    await page.getByRole('button', { name: 'Suppress', exact: true }).click();
    const table = page.getByRole('table', { name: /Suppressed addresses/ });
    await table.getByText(address).waitFor();
    t.equal((await api(`/suppressions/${address}`)).body.origin, 'manual', 'added through the API, origin manual');

    await page.getByLabel('Address starts with').fill('blocked-');
    await page.waitForURL(/q=blocked-/);
    await table.getByText('other@example.org').waitFor({ state: 'detached' });
    t.ok(await table.getByText(address).isVisible(), 'the search finds the address');
    await page.getByLabel('Origin').selectOption('bounce');
    await page.getByText('No suppressed address matches').waitFor();
    await page.getByLabel('Origin').selectOption('manual');
    await table.getByText(address).waitFor();
    await shot(page, 'suppressions-search');
    await assertAccessible(t, page, 'suppressions page');

    await table.getByRole('button', { name: `Remove ${address}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove this suppression?' });
    t.match(await dialog.textContent(), address, 'the dialog names the address');
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No suppressed address matches').waitFor();
    t.equal((await api(`/suppressions/${address}`)).status, 404, 'removed through the API');
    await shot(page, 'suppressions-removed');

    t.same(d.errors, [], 'no page errors');
  });
}

/** Polls `check` until it holds (true) or `ms` pass (false). */
async function until(check: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

/** A screenshot from the top of the page (the sidebar sticks to where the page was scrolled). */
async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate('window.scrollTo(0, 0)');
  await screenshot(page, name);
}

/** The id the appliance gave a request (its x-request-id answer header). */
function mailroomRequestId(headers: Headers): string {
  return headers.get('x-request-id') ?? '(no request id header)';
}
