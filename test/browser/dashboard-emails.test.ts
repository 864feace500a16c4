import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startDeliveryWorker } from '../../mta/queue/delivery-worker.js';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot, signInByCookie, type Dashboard } from '../helpers/dashboard.js';
import { request } from '../helpers/http.js';
import { startMtaFixture, type MtaFixture } from '../helpers/mta-fixture.js';
import { receiveMessage, receivingDomain } from '../helpers/received-mail.js';

/**
 * The Emails and Received pages against a real appliance whose MTA delivers to a loopback SMTP
 * sink: an email sent through the API appears in the list, its page follows it to `delivered`
 * without a reload (the page polls) with the SMTP reply and transcript of the attempt; a bounce
 * shows its diagnostic code; a scheduled email is canceled from its page; the HTML preview runs
 * no script, fetches nothing remote and submits no form; a received email shows its content,
 * authentication and a raw download. Screenshots and axe-core on each page.
 */
const skipped = browserSkipReason();

/**
 * What Chromium logs (as console errors) when the sandbox and the policies do their job on the
 * untrusted HTML: the frame's script blocked, its form blocked, its http image refused. They are
 * the expected outcome here, not failures of the dashboard.
 */
const SANDBOX_NOTICE =
  /Blocked script execution in 'about:srcdoc'|Blocked form submission|Refused to load the image|Content Security Policy/;

if (skipped) {
  t.plan(0, skipped);
} else {
  // The worker is started by the test, once the first email is on the page (see below).
  const fx: MtaFixture = await startMtaFixture({ sinkHosts: ['127.0.0.10'], noWorker: true });
  const [sink] = fx.sinks;
  fx.dns.add(
    { type: 'MX', name: 'dest.test', exchange: 'mx.dest.test', priority: 10 },
    { type: 'A', name: 'mx.dest.test', address: '127.0.0.10' },
  );
  // What the email's remote image or form would reach: a local HTTP server counting hits.
  const hits: string[] = [];
  const remote = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/gif' }).end();
  });
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  const remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;

  const d: Dashboard & { errors: string[] } = await openDashboard(fx.app);
  await signInByCookie(fx.app, d.context, fx.teamId);
  t.teardown(async () => {
    await d.close();
    await fx.close();
    await new Promise((resolve) => remote.close(resolve));
  });
  const { page } = d;
  const send = async (body: Record<string, unknown>) => {
    const res = await request(fx.app.url, '/emails', {
      method: 'POST',
      token: fx.token,
      body: { from: 'Acme <hello@sender.test>', subject: 'Hello', text: 'Hello there', ...body },
    });
    if (res.status !== 200) throw new Error(`send refused: ${res.text}`);
    return res.body.id as string;
  };
  const unexpectedErrors = () => d.errors.filter((error) => !SANDBOX_NOTICE.test(error));

  t.test('a sent email: in the list, then delivered on its page without a reload', async (t) => {
    await page.goto('/dashboard/emails');
    await page.getByRole('heading', { level: 1, name: 'Emails' }).waitFor();
    await page.getByText('No emails yet').waitFor();
    t.ok(
      await page.getByRole('link', { name: 'API key', exact: true }).isVisible(),
      'the empty state links to the API keys',
    );
    t.match(
      await page.locator('.first-email').textContent(),
      `${fx.app.url}/api/v1/emails`,
      'with this appliance’s URL',
    );

    await screenshot(page, 'emails-empty');
    await assertAccessible(t, page, 'the empty emails list');

    const id = await send({
      to: 'ada@dest.test',
      subject: 'Your receipt',
      html: '<h1 id="heading">Thanks for your order</h1><p>Receipt 42</p>',
      text: 'Thanks for your order',
      tags: [{ name: 'category', value: 'receipt' }],
      attachments: [{ filename: 'receipt.txt', content: Buffer.from('Receipt 42').toString('base64') }],
    });
    // The list asks again by itself: the new email appears without a reload.
    const row = page.getByRole('row', { name: /ada@dest\.test/ });
    await row.waitFor({ timeout: 20_000 });
    t.match(await row.textContent(), /Your receipt/);
    t.match(await row.textContent(), /queued/, 'still queued: no worker runs yet');
    await row.getByRole('link', { name: 'ada@dest.test' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your receipt' }).waitFor();
    t.equal(new URL(page.url()).pathname, `/dashboard/emails/${id}`);
    await page.getByText('Nothing has happened yet').waitFor();
    t.ok(await page.getByText('Updating as it happens').isVisible(), 'the page says it follows the email');
    // A marker on the window: it survives only if the page is not reloaded.
    await page.evaluate('window.notReloaded = true');

    const worker = startDeliveryWorker(fx.app.runtime);
    fx.workers.push(worker); // stopped by fx.close()
    const timeline = page.locator('#timeline-title').locator('xpath=ancestor::section');
    await timeline.locator('[data-event-type="email.delivered"]').waitFor({ timeout: 30_000 });
    t.ok((await page.evaluate('window.notReloaded')) === true, 'the timeline moved without a reload');
    t.ok(await timeline.locator('[data-event-type="email.sent"]').count(), 'sent is on the timeline');
    t.equal(sink!.messages.filter((m) => m.to.includes('ada@dest.test')).length, 1, 'the sink got the message');

    const deliveries = page.locator('#deliveries-title').locator('xpath=ancestor::section');
    await deliveries.getByText('Attempt 1').waitFor();
    const attempt = (await deliveries.textContent()) ?? '';
    t.match(attempt, 'mx.dest.test', 'the MX host');
    t.match(attempt, '127.0.0.2', 'the egress address');
    t.match(attempt, 'us-east-1 pool', 'its pool');
    t.match(attempt, /250 /, 'the SMTP reply');
    await deliveries.getByText('SMTP transcript').click();
    const transcript = (await deliveries.locator('details pre').first().textContent()) ?? '';
    t.match(transcript, /RCPT TO:<ada@dest\.test>/i, 'the transcript of the conversation');
    await page.getByText('Updating as it happens').waitFor({ state: 'detached' });

    const summary = (await page.locator('#summary-title').locator('xpath=ancestor::section').textContent()) ?? '';
    t.match(summary, 'hello@sender.test');
    t.match(summary, 'category=receipt', 'the tags');
    const frame = page.frameLocator('iframe[title^="The HTML"]');
    t.equal(await frame.locator('#heading').textContent(), 'Thanks for your order', 'the HTML in its frame');
    const download = page.getByRole('link', { name: 'Download receipt.txt' });
    const href = (await download.getAttribute('href')) ?? '';
    const file = await page.request.get(href);
    t.equal(await file.text(), 'Receipt 42', 'the attachment downloads through its signed link');
    t.ok(
      await page.getByRole('heading', { name: 'Webhook deliveries' }).isVisible(),
      'the webhook deliveries card is there',
    );
    t.ok(await page.getByText('No webhook was called for this email').isVisible(), '(none: no endpoint)');

    await screenshot(page, 'emails-detail-delivered');
    await assertAccessible(t, page, 'the email page');
    t.same(unexpectedErrors(), [], 'no page error');
  });

  t.test('a bounce shows the server’s diagnostic code', async (t) => {
    sink!.faults.push({
      stage: 'rcpt',
      code: 550,
      message: '5.1.1 No such mailbox here',
      recipient: 'nobody@dest.test',
    });
    const id = await send({ to: 'nobody@dest.test', subject: 'Will bounce' });
    await page.goto(`/dashboard/emails/${id}`);
    const bounced = page.locator('[data-event-type="email.bounced"]');
    await bounced.waitFor({ timeout: 30_000 });
    t.match(await bounced.locator('.diagnostic').textContent(), /550 5\.1\.1 No such mailbox here/);
    t.match(await bounced.textContent(), /Permanent/);
    await screenshot(page, 'emails-detail-bounced');
    await assertAccessible(t, page, 'a bounced email');
    const summary = page.locator('#summary-title').locator('xpath=ancestor::section');
    await summary.locator('.badge', { hasText: 'bounced' }).waitFor();
    t.pass('the email’s status is bounced');
    t.same(unexpectedErrors(), []);
  });

  t.test('a scheduled email is canceled from its page', async (t) => {
    const id = await send({
      to: 'later@dest.test',
      subject: 'Tomorrow’s digest',
      scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    await page.goto(`/dashboard/emails/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Tomorrow’s digest' }).waitFor();
    t.ok(await page.getByRole('button', { name: 'Reschedule' }).isVisible());
    await page.getByRole('button', { name: 'Cancel sending' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this scheduled email?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel the email' }).click();
    await page.locator('[data-event-type="email.canceled"]').waitFor();
    t.equal(await page.getByRole('button', { name: 'Cancel sending' }).count(), 0, 'no more cancel button');
    const api = await request(fx.app.url, `/emails/${id}`, { token: fx.token });
    t.equal(api.body.last_event, 'canceled', 'the API says canceled');
    t.same(unexpectedErrors(), []);
  });

  t.test('the HTML preview: no script, nothing remote, no form submission', async (t) => {
    const html = `<h1 id="heading">Offer inside</h1>
<img src="${remoteUrl}/pixel" alt="pixel" width="1" height="1">
<form action="${remoteUrl}/submit" method="get"><input name="card" value="4111"><button id="go" type="submit">Claim</button></form>
<script>
  document.title = 'SCRIPT RAN';
  document.body.insertAdjacentHTML('beforeend', '<p id="marker">script ran</p>');
  try { parent.postMessage('script-ran', '*'); } catch {}
  new Image().src = '${remoteUrl}/from-script';
</script>`;
    const id = await send({ to: 'reader@dest.test', subject: 'Offer', html, text: 'Offer' });
    // A listener on the dashboard for the message the email's script would post.
    await page.goto('/dashboard/emails');
    // (Strings: this file is type-checked without the DOM library.)
    await page.evaluate(
      "window.posted = []; window.addEventListener('message', (event) => window.posted.push(event.data))",
    );
    // In-app navigation keeps the listener (a full load would drop it).
    await page.evaluate(
      `window.history.pushState(null, '', '/dashboard/emails/${id}'); window.dispatchEvent(new PopStateEvent('popstate'))`,
    );
    await page.getByRole('heading', { level: 1, name: 'Offer' }).waitFor();
    const frame = page.frameLocator('iframe[title^="The HTML"]');
    t.equal(await frame.locator('#heading').textContent(), 'Offer inside', 'the email is shown');
    await page.waitForTimeout(500); // a would-be script or fetch gets its chance
    t.equal(await frame.locator('#marker').count(), 0, 'the script did not run');
    t.same(await page.evaluate('window.posted'), [], 'nothing was posted');
    t.not(await page.title(), 'SCRIPT RAN');
    t.same(hits, [], 'the remote server saw no request');

    await frame.locator('#go').click();
    await page.waitForTimeout(500);
    t.equal(await frame.locator('#heading').textContent(), 'Offer inside', 'the frame did not navigate');
    t.same(hits, [], 'the form did not submit');

    await page.getByRole('button', { name: 'Load remote images' }).click();
    await page.getByRole('button', { name: 'Block remote images' }).waitFor();
    await page.waitForTimeout(700);
    // Still no hit, and this is right: "Load remote images" lets the frame load https: images
    // only, and the dashboard's own policy (which a srcdoc frame inherits) allows no http:
    // image either, so a plain-http pixel like this one stays blocked even after the click.
    t.same(hits, [], 'an http image stays blocked even after "Load remote images"');
    t.ok(
      d.errors.some((error) => /Blocked script execution/.test(error)),
      'Chromium reports the script blocked by the sandbox',
    );
    t.same(unexpectedErrors(), []);

    // The control: the browser does reach the server when nothing stops it.
    const probe = await d.context.newPage();
    await probe.goto(`${remoteUrl}/probe`);
    await probe.close();
    t.ok(hits.includes('/probe'), 'the local server is reachable from the browser');
  });

  t.test('the list: rows, filters in the URL', async (t) => {
    await page.goto('/dashboard/emails');
    await page.getByRole('row', { name: /nobody@dest\.test/ }).waitFor();
    t.equal(await page.getByRole('row').count(), 5, 'four emails and the header row');
    await screenshot(page, 'emails-list');
    await assertAccessible(t, page, 'the emails list');

    await page.getByLabel('Status').selectOption('bounced');
    await page.waitForURL(/status=bounced/);
    await page.getByRole('row', { name: /ada@dest\.test/ }).waitFor({ state: 'detached' });
    t.equal(await page.getByRole('row').count(), 2, 'only the bounced one');
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Recipient or subject').fill('digest');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/q=digest/);
    await page.getByRole('row', { name: /nobody@dest\.test/ }).waitFor({ state: 'detached' });
    t.match(await page.locator('tbody').textContent(), 'Tomorrow’s digest');
    t.equal(await page.getByRole('row').count(), 2, 'the search matches the subject');
    // The filters are in the URL: a reload keeps them.
    await page.reload();
    await page.getByRole('row', { name: /later@dest\.test/ }).waitFor();
    t.equal(await page.getByLabel('Recipient or subject').inputValue(), 'digest');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByRole('row', { name: /ada@dest\.test/ }).waitFor();
    t.same(unexpectedErrors(), []);
  });

  t.test('a received email: content, authentication, attachment and raw download', async (t) => {
    const domain = await receivingDomain(fx.app, fx.teamId);
    const raw = [
      'From: Grace Hopper <grace@example.org>',
      `To: support@${domain}`,
      'Subject: Question about order 42',
      'Message-ID: <question-42@example.org>',
      'Date: Mon, 23 Nov 2026 10:00:00 +0000',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="outer"',
      '',
      '--outer',
      'Content-Type: multipart/alternative; boundary="inner"',
      '',
      '--inner',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Where is my order?',
      '--inner',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p id="question">Where is <b>my order</b>?</p><script>parent.postMessage("x","*")</script>',
      '--inner--',
      '--outer',
      'Content-Type: text/plain; name="order.txt"',
      'Content-Disposition: attachment; filename="order.txt"',
      '',
      'Order 42',
      '--outer--',
      '',
    ].join('\r\n');
    await receiveMessage(fx.app, { from: 'grace@example.org', to: [`support@${domain}`], raw });
    await page.goto('/dashboard/received');
    const row = page.getByRole('row', { name: /grace@example\.org/ });
    await row.waitFor();
    t.match(await row.textContent(), 'Question about order 42');
    await screenshot(page, 'received-list');
    await assertAccessible(t, page, 'the received list');

    await row.getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: 'Question about order 42' }).waitFor();
    const frame = page.frameLocator('iframe[title^="The HTML"]');
    t.equal(await frame.locator('#question').textContent(), 'Where is my order?', 'the HTML, sandboxed');
    const auth = (await page.locator('#authentication-title').locator('xpath=ancestor::section').textContent()) ?? '';
    t.match(auth, /SPF/);
    t.match(auth, /DMARC/);
    await page.getByRole('tab', { name: 'Text' }).click();
    t.match(await page.locator('.message-text').textContent(), 'Where is my order?');
    await page.getByRole('tab', { name: /Headers/ }).click();
    t.match(await page.locator('.message-headers').textContent(), /message-id: <question-42@example\.org>/i);

    const rawLink = page.getByRole('link', { name: 'Download .eml' });
    const rawFile = await page.request.get((await rawLink.getAttribute('href')) ?? '');
    t.equal(rawFile.status(), 200);
    t.match(await rawFile.text(), 'Subject: Question about order 42', 'the raw message downloads');
    const attachment = page.getByRole('link', { name: 'Download order.txt' });
    const file = await page.request.get((await attachment.getAttribute('href')) ?? '');
    t.equal(await file.text(), 'Order 42', 'the attachment downloads');

    // A share link of the received email, then every link revoked (behind a confirmation).
    await page.getByRole('button', { name: 'Create a share link' }).click();
    const link = page.locator('.share-link code');
    await link.waitFor();
    const shareUrl = (await link.textContent()) ?? '';
    t.match(shareUrl, /\/share\//, 'the share URL is shown');
    t.equal((await page.request.get(shareUrl)).status(), 200, 'and opens the email');
    await page.getByRole('button', { name: 'Revoke all links' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke the links' }).click();
    await link.waitFor({ state: 'detached' });
    t.equal((await page.request.get(shareUrl)).status(), 404, 'revoked');

    // Forwarded as the SDK's emails.receiving.forward does: the original attached, byte for byte.
    const forward = page.getByRole('form', { name: 'Forward this email' });
    await forward.getByLabel('To').fill('team@dest.test');
    await forward.getByRole('button', { name: 'Forward' }).click();
    await page.getByText('Forwarded.').waitFor();
    const forwardedId = ((await page.getByRole('link', { name: 'Follow it in Emails' }).getAttribute('href')) ?? '')
      .split('/')
      .at(-1)!;
    const forwarded = await request(fx.app.url, `/emails/${forwardedId}`, { token: fx.token });
    t.equal(forwarded.body.subject, 'Fwd: Question about order 42', 'a new email, Fwd: subject');
    t.same(forwarded.body.to, ['team@dest.test']);
    const parts = await request(fx.app.url, `/emails/${forwardedId}/attachments`, { token: fx.token });
    t.equal(parts.body.data[0]?.filename, 'forwarded_message.eml', 'the original attached');
    const original = await page.request.get(parts.body.data[0]?.download_url ?? '');
    t.equal(await original.text(), await rawFile.text(), 'byte for byte');

    await page.getByRole('tab', { name: 'HTML' }).click();
    await screenshot(page, 'received-detail');
    await assertAccessible(t, page, 'the received email page');
    t.same(unexpectedErrors(), []);
  });
}
