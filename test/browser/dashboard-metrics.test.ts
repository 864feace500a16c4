import t from 'tap';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot, signInByCookie } from '../helpers/dashboard.js';
import { request } from '../helpers/http.js';
import { bounce, eventAt, metricEmail } from '../helpers/metric-events.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * The Metrics page against a real appliance: events written with chosen times and rolled up
 * (as the metric tests do), then the page draws its charts (SVG, with the numbers in a table),
 * shows the reputation levels in words, sends each filter to GET /emails/metrics, and shows the
 * empty state for a domain that sent nothing.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const app = await startTestApp();
  t.teardown(() => app.close());

  t.test('charts, tables, reputation levels, filters in the request and the URL, empty state', async (t) => {
    const { runtime } = app;
    const team = await app.createTeam('Metrics dashboard', 'pro'); // pro: two domains
    const addDomain = async (name: string) => {
      const created = await request(app.url, '/domains', { method: 'POST', token: team.token, body: { name } });
      t.equal(created.status, 201, `domain ${name} added`);
      return created.body.id as string;
    };
    const domainId = await addDomain('news.metrics-dash.test');
    const quietDomainId = await addDomain('quiet.metrics-dash.test');

    // 20 sent three hours ago: 18 delivered, 1 permanent bounce (5 %: warning), 1 complaint
    // (5 %: at risk), 6 opens and 2 clicks. Three hours ago is inside every range in any time zone.
    const at = new Date(Date.now() - 3 * 3_600_000);
    for (let i = 0; i < 20; i++) {
      const to = `reader${i}@example.net`;
      const email = await metricEmail(runtime, team.teamId, domainId, [to]);
      await eventAt(runtime, at, email, 'email.sent');
      if (i === 0) await eventAt(runtime, at, email, 'email.bounced', { extra: bounce('Permanent') });
      else await eventAt(runtime, at, email, i === 1 ? 'email.complained' : 'email.delivered');
      if (i >= 2 && i < 8) await eventAt(runtime, at, email, 'email.opened');
      if (i >= 2 && i < 4) await eventAt(runtime, at, email, 'email.clicked');
    }
    await runtime.services.metrics.rollUp({ until: new Date(Date.now() + 60_000) });

    const d = await openDashboard(app);
    t.teardown(() => d.close());
    const { page } = d;
    const metricRequests: URL[] = [];
    page.on('request', (req) => {
      if (req.url().includes('/api/v1/emails/metrics')) metricRequests.push(new URL(req.url()));
    });
    const lastRequest = () => metricRequests.at(-1)!;
    await signInByCookie(app, d.context, team.teamId);
    await page.goto('/dashboard/metrics');
    await page.getByRole('heading', { level: 1, name: 'Metrics' }).waitFor();
    await page.getByRole('heading', { name: 'Sent and delivered' }).waitFor();

    const browserZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    const first = lastRequest();
    t.equal(first.searchParams.get('dimensions'), 'period', 'asks for rows by period');
    t.equal(first.searchParams.get('granularity'), 'daily', 'by day by default');
    t.equal(first.searchParams.get('timezone'), browserZone, "the browser's time zone by default");
    t.match(first.searchParams.get('start_date'), /^\d{4}-\d{2}-\d{2}$/, 'the last 7 days from midnight');

    // The totals, and the reputation levels in words (not colour alone).
    const totals = page.getByRole('region', { name: 'Totals over the range' });
    t.match(await totals.innerText(), /Sent\s+20/, 'sent total');
    t.match(await totals.innerText(), /Delivered\s+18\s+90 % of sent/, 'delivered total and rate');
    const bounceCard = page.getByRole('region', { name: 'Bounce rate' });
    const complaintCard = page.getByRole('region', { name: 'Complaint rate' });
    t.match(await bounceCard.innerText(), /5 %\s*Warning/, 'a 5 % bounce rate is a warning');
    t.match(await bounceCard.innerText(), /Warning at 5 %, at risk at 10 %/, 'the thresholds in words');
    t.match(await complaintCard.innerText(), /5 %\s*At risk/, 'a 5 % complaint rate puts sending at risk');
    t.match(await complaintCard.innerText(), /Warning at 0\.1 %, at risk at 0\.5 %/);

    // Every chart is an SVG with a legend and a table of its numbers.
    const charts = page.locator('figure.chart');
    t.equal(await charts.count(), 6, 'six charts');
    t.equal(await page.locator('figure.chart svg[role="img"]').count(), 6, 'each an SVG image');
    const volume = charts.filter({ has: page.getByRole('heading', { name: 'Sent and delivered' }) });
    t.ok((await volume.locator('polyline').count()) >= 2, 'a line per series');
    await volume.getByText('Show the numbers').click();
    const table = volume.getByRole('table', { name: 'Sent and delivered' });
    await table.waitFor();
    t.same(await table.locator('thead th').allTextContents(), ['Period', 'Sent', 'Delivered'], 'the table columns');
    const cells = await table.locator('tbody td.num').allInnerTexts();
    t.equal(
      cells.reduce((sum, cell) => sum + Number(cell), 0),
      38,
      'the table holds the numbers (20 sent + 18 delivered)',
    );
    const bounces = charts.filter({ has: page.getByRole('heading', { name: 'Bounces by type' }) });
    await bounces.getByText('Show the numbers').click();
    t.ok(
      (await bounces.getByRole('table').innerText()).match(/\t1\t0\t0/),
      'one permanent bounce, no transient or undetermined one',
    );
    t.ok((await bounces.locator('svg[role="img"] rect[fill^="url("]').count()) >= 1, 'the bounce drawn as a bar');
    await screenshot(page, 'metrics');
    await assertAccessible(t, page, 'metrics page');

    // Each filter changes the request and is kept in the page's URL.
    const choose = async (label: string, value: string) => {
      const before = metricRequests.length;
      await page.getByLabel(label, { exact: true }).selectOption(value);
      for (let i = 0; i < 50 && metricRequests.length === before; i++) await page.waitForTimeout(50);
      t.ok(metricRequests.length > before, `choosing ${label} ${value} asks again`);
      return lastRequest();
    };
    let asked = await choose('Range', '30d');
    t.equal(asked.searchParams.get('granularity'), 'daily');
    const days = (Date.now() - Date.parse(`${asked.searchParams.get('start_date')}T00:00:00Z`)) / 86_400_000;
    t.ok(days > 28 && days < 31, `30 days back (${days.toFixed(1)})`);
    asked = await choose('Period', 'weekly');
    t.equal(asked.searchParams.get('granularity'), 'weekly', 'by week');
    asked = await choose('Time zone', 'Europe/Paris');
    t.equal(asked.searchParams.get('timezone'), 'Europe/Paris', 'the chosen time zone');
    asked = await choose('Range', '24h');
    t.equal(asked.searchParams.get('granularity'), 'hourly', 'the last 24 hours go by hour');
    t.match(asked.searchParams.get('start_date'), /T/, 'the last 24 hours start at an instant');
    await page.locator(`option[value="${domainId}"]`).waitFor({ state: 'attached' });
    asked = await choose('Domain', domainId);
    t.equal(asked.searchParams.get('domain_id'), domainId, 'the domain filter');
    await page.getByRole('heading', { name: 'Sent and delivered' }).waitFor();
    const url = new URL(page.url());
    t.same(
      Object.fromEntries(url.searchParams),
      { range: '24h', tz: 'Europe/Paris', domain: domainId },
      'the filters are in the URL (weekly dropped: the 24-hour range is hourly)',
    );
    t.match(await page.getByRole('region', { name: 'Totals over the range' }).innerText(), /Sent\s+20/);

    // A domain that sent nothing: the empty state, not empty charts.
    await choose('Domain', quietDomainId);
    await page.getByText('Nothing was sent in this range').waitFor();
    t.equal(await page.locator('figure.chart').count(), 0, 'no charts without sends');
    await screenshot(page, 'metrics-empty');
    await assertAccessible(t, page, 'metrics page, empty');

    // Reloading keeps the view: the URL holds the filters.
    await page.reload();
    await page.getByText('Nothing was sent in this range').waitFor();
    t.equal(lastRequest().searchParams.get('domain_id'), quietDomainId, 'the domain filter survives a reload');
    t.same(d.errors, [], 'no page errors');
  });
}
