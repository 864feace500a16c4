import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { browserSkipReason, launchChromium } from '../helpers/browser.js';
import { request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * A shared email in a real browser (Debian's chromium driven by playwright-core), JavaScript on:
 * the page shows the email, while the email's own script never runs and its remote image, style
 * sheet and background are never fetched (the sandboxed frame and the policy stop them). Runs in
 * the SQLite pass only; under CI chromium must be there.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const app = await startTestApp();
  const browser = await launchChromium();
  const shots = mkdtempSync(join(tmpdir(), 'mailroom-shots-'));
  // What a tracking pixel or remote resource in the email would reach: it must see nothing.
  const fetched: string[] = [];
  const remote = createServer((req, res) => {
    fetched.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/gif' }).end();
  });
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  const remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
  t.teardown(async () => {
    await browser.close();
    await app.close();
    await new Promise((resolve) => remote.close(resolve));
    rmSync(shots, { recursive: true, force: true });
  });

  t.test('the share page shows the email; its script does not run; nothing remote is fetched', async (t) => {
    const team = await app.createTeam('Share');
    const domain = `share-${Math.random().toString(36).slice(2, 6)}.test`;
    await markedVerifiedDomain(app, team.teamId, domain);
    const html = `<html><head><link rel="stylesheet" href="${remoteUrl}/style.css"></head><body>
<h1 id="heading">Launch day is here</h1>
<p style="background-image: url(${remoteUrl}/background)">Our biggest release yet.</p>
<img src="${remoteUrl}/pixel" alt="pixel" width="1" height="1">
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="embedded">
<img src="x:broken" alt="" onerror="document.body.insertAdjacentHTML('beforeend', '<p id=marker>handler ran</p>')">
<script>
  document.title = 'SCRIPT RAN';
  document.body.insertAdjacentHTML('beforeend', '<p id="marker">script ran</p>');
  try { parent.document.body.insertAdjacentHTML('beforeend', '<p id="parent-marker">escaped</p>'); } catch {}
  new Image().src = '${remoteUrl}/from-script';
</script>
</body></html>`;
    const sent = await request(app.url, '/emails', {
      method: 'POST',
      token: team.token,
      body: {
        from: `news@${domain}`,
        to: 'reader@example.net',
        subject: 'Launch day',
        html,
        text: 'Launch day, in text',
      },
    });
    t.equal(sent.status, 200);
    const shared = await request(app.url, `/emails/${sent.body.id}/share`, {
      method: 'POST',
      token: team.token,
      body: { expires_in: '1 hour' },
    });
    t.equal(shared.status, 200);

    const context = await browser.newContext(); // JavaScript on: the sandbox, not the browser, must stop the script
    const page = await context.newPage();
    // A request the policy refuses is announced by Chromium but never completes.
    const answered: string[] = [];
    page.on('requestfinished', (req) => answered.push(req.url()));
    await page.goto(shared.body.url, { waitUntil: 'load' });
    const frame = page.frameLocator('iframe');
    t.equal(await frame.locator('#heading').textContent(), 'Launch day is here', 'the email is shown in the frame');
    t.equal(await page.title(), 'Launch day', 'the page title is the subject');
    t.equal(await page.locator('h1').first().textContent(), 'Launch day');
    const text = (await page.locator('main').textContent()) ?? '';
    t.match(text, 'news@', 'from shown');
    t.match(text, 'reader@example.net', 'to shown');
    t.match(text, 'Launch day, in text', 'the text part shown');
    await page.waitForTimeout(300); // give a would-be script or fetch its chance
    t.equal(await frame.locator('#marker').count(), 0, 'no script or inline handler ran in the frame');
    t.equal(await page.locator('#parent-marker').count(), 0, 'nothing reached the page');
    t.equal(await frame.locator('img[alt=embedded]').count(), 1);
    t.same(fetched, [], 'the remote server saw no request');
    t.same(
      answered.filter((url) => url.startsWith(remoteUrl)),
      [],
      'no remote request completed',
    );

    const file = join(shots, 'shared-email.png');
    await page.screenshot({ path: file, fullPage: true });
    const png = readFileSync(file);
    t.equal(png.subarray(1, 4).toString('latin1'), 'PNG', 'a screenshot was taken');
    t.ok(png.readUInt32BE(16) > 300 && png.readUInt32BE(20) > 200, 'of a rendered page');

    // The control: this browser does reach the local server when nothing stops it.
    const probe = await context.newPage();
    await probe.goto(`${remoteUrl}/probe`);
    t.ok(fetched.includes('/probe'), 'the remote server is reachable from the browser');
    await probe.close();

    // Revoked: the same URL is the plain 404 page.
    await request(app.url, `/emails/${sent.body.id}/share`, { method: 'DELETE', token: team.token });
    const gone = await page.goto(shared.body.url);
    t.equal(gone?.status(), 404);
    t.equal(await page.locator('h1').textContent(), 'Link not valid');
    await context.close();
  });
}
