import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { browserSkipReason, launchChromium } from '../helpers/browser.js';
import { request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * The hosted preference page in a real browser (Debian's chromium driven by playwright-core):
 * choices made by clicking labels, saved by the form, kept after a reload, with JavaScript off
 * (the page must not need it). Runs in the SQLite pass only; under CI chromium must be there.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const app = await startTestApp();
  const browser = await launchChromium();
  const shots = mkdtempSync(join(tmpdir(), 'mailroom-shots-'));
  t.teardown(async () => {
    await browser.close();
    await app.close();
    rmSync(shots, { recursive: true, force: true });
  });

  t.test('choose topics and unsubscribe by clicking labels; save; reload; choices kept', async (t) => {
    const team = await app.createTeam('Acme');
    const call = (method: string, path: string, body?: unknown) =>
      request(app.url, path, { method, token: team.token, body });
    const news = (await call('POST', '/topics', { name: 'News', default_subscription: 'opt_in', visibility: 'public' }))
      .body.id;
    const offers = (
      await call('POST', '/topics', {
        name: 'Offers',
        default_subscription: 'opt_out',
        visibility: 'public',
        description: 'Discounts, now and then',
      })
    ).body.id;
    const { id } = (await call('POST', '/contacts', { email: 'browser@example.com' })).body;
    const url = app.runtime.services.contactLinks.preferencesUrl(id);

    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(url);
    t.equal(await page.title(), 'Email preferences');
    // getByLabel finds inputs through their <label for>: the form is labelled for assistive tech.
    t.equal(await page.getByLabel('News').isChecked(), true, 'default opt-in shown checked');
    t.equal(await page.getByLabel('Offers').isChecked(), false, 'default opt-out shown unchecked');
    t.equal(await page.getByLabel('Unsubscribe from all email').isChecked(), false);
    await page.getByText('Offers', { exact: true }).click(); // clicking the label ticks the box
    await page.getByLabel('News').uncheck();
    await page.screenshot({ path: join(shots, 'before-save.png'), fullPage: true });
    await Promise.all([page.waitForURL(/saved=1/), page.getByRole('button', { name: 'Save preferences' }).click()]);
    t.equal(await page.getByRole('status').textContent(), 'Your preferences were saved.');
    await page.reload();
    t.equal(await page.getByLabel('News').isChecked(), false, 'News kept unchecked after a reload');
    t.equal(await page.getByLabel('Offers').isChecked(), true, 'Offers kept checked after a reload');
    const after = join(shots, 'after-reload.png');
    await page.screenshot({ path: after, fullPage: true });
    const png = readFileSync(after);
    t.equal(png.subarray(1, 4).toString('latin1'), 'PNG', 'a screenshot was taken');
    t.ok(png.readUInt32BE(16) > 300 && png.readUInt32BE(20) > 200, 'of a rendered page');

    const topics = (await call('GET', `/contacts/${id}/topics`)).body.data;
    t.same(
      Object.fromEntries(topics.map((x: { id: string; subscription: string }) => [x.id, x.subscription])),
      { [news]: 'opt_out', [offers]: 'opt_in' },
      'the API sees the choices',
    );

    // Back to the page's own address first: it already ends in ?saved=1, so waiting for that URL
    // after the next save would return at once and the reload would race the form's navigation.
    await page.goto(url);
    await page.getByLabel('Unsubscribe from all email').check();
    await Promise.all([page.waitForURL(/saved=1/), page.getByRole('button', { name: 'Save preferences' }).click()]);
    await page.reload();
    t.equal(await page.getByLabel('Unsubscribe from all email').isChecked(), true, 'global opt-out kept');
    t.equal((await call('GET', `/contacts/${id}`)).body.unsubscribed, true);
    const sources = (await call('GET', `/contacts/${id}/consent`)).body.data.map((r: { source: string }) => r.source);
    t.ok(sources.length === 3 && sources.every((s: string) => s === 'preference_page'), 'three changes, from the page');
    await context.close();
  });

  t.test('the unsubscribe link: confirm in the browser', async (t) => {
    const team = await app.createTeam('Beta');
    const { id } = (
      await request(app.url, '/contacts', { method: 'POST', token: team.token, body: { email: 'confirm@example.com' } })
    ).body;
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(app.runtime.services.contactLinks.unsubscribeUrl(id));
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Unsubscribe' }).click()]);
    await page.getByText('You are unsubscribed').waitFor();
    t.ok(await page.getByRole('link', { name: 'Manage your email preferences' }).isVisible());
    t.equal((await request(app.url, `/contacts/${id}`, { token: team.token })).body.unsubscribed, true, 'unsubscribed');
    await context.close();
  });
}
