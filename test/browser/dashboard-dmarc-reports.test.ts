import { readFileSync } from 'node:fs';
import t from 'tap';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot, signInByCookie } from '../helpers/dashboard.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * The "DMARC reports" card of the domain page, in a real browser: empty before any report, then
 * the pass rates, the sources (ours marked) and the unknown senders of a stored Google report.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const app = await startTestApp({
    config: { mta: { regions: { 'us-east-1': { ips: ['192.0.2.10', '192.0.2.11'] } } } },
  });
  t.teardown(() => app.close());

  /** The Google fixture as a report message, stored as if its period began `daysAgo` days ago. */
  async function storeGoogleReport(target: { domainId: string; teamId: string }, daysAgo: number) {
    const gz = readFileSync(new URL('../fixtures/dmarc/google.xml.gz', import.meta.url));
    const raw = Buffer.from(
      [
        'From: noreply-dmarc-support@google.com',
        'MIME-Version: 1.0',
        'Content-Type: application/gzip; name="report.xml.gz"',
        'Content-Transfer-Encoding: base64',
        '',
        gz.toString('base64'),
        '',
      ].join('\r\n'),
    );
    const service = app.runtime.services.dmarcReports;
    const prepared = await service.prepare(raw, { ...target, name: 'dmarc-fixture.test', zone: 'dmarc-fixture.test' });
    prepared.report.dateBegin = new Date(Date.now() - daysAgo * 86_400_000);
    prepared.report.reportId = `${prepared.report.reportId}-${daysAgo}`;
    await app.runtime.db.knex.transaction((trx) => service.store(trx, prepared));
  }

  t.test('the card: empty, then rates, sources and unknown senders', async (t) => {
    const team = await app.createTeam('DMARC UI', 'unlimited');
    const domain = await markedVerifiedDomain(app, team.teamId, 'dmarc-fixture.test');
    const d = await openDashboard(app);
    t.teardown(d.close);
    const { page } = d;
    await signInByCookie(app, d.context, team.teamId);

    await page.goto(`/dashboard/domains/${domain.id}`);
    await page.getByText('No DMARC reports in the last 30 days').waitFor();

    // The same report on two days: two points on the chart, every count doubled.
    await storeGoogleReport({ domainId: domain.id, teamId: team.teamId }, 1);
    await storeGoogleReport({ domainId: domain.id, teamId: team.teamId }, 3);
    await page.reload();
    const table = page.getByRole('table', { name: 'Sending sources' });
    await table.waitFor();
    const card = page.getByRole('region', { name: 'DMARC reports' });
    t.match(await card.textContent(), /Messages reported \(30 days\)\s*314/);
    t.ok(
      await card.getByRole('img', { name: 'Messages reported and DMARC passes per day' }).isVisible(),
      'a chart per day',
    );
    t.match(await card.textContent(), /DMARC pass\s*95\.5%/);
    t.match(await card.textContent(), /SPF aligned\s*76\.4%/);
    const rows = table.locator('tbody tr');
    t.equal(await rows.count(), 3);
    t.match(await rows.nth(0).textContent(), /192\.0\.2\.10.*240.*Mailroom/);
    t.match(await rows.nth(2).textContent(), /203\.0\.113\.50.*14.*Unknown/);
    t.match(await card.textContent(), /1 source not ours failed DMARC for 14 messages/);
    await screenshot(page, 'domain-dmarc-reports');
    await assertAccessible(t, page, 'domain page with DMARC reports');
    t.same(d.errors, [], 'no script errors');
  });
}
