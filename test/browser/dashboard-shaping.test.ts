import t from 'tap';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot } from '../helpers/dashboard.js';
import { request } from '../helpers/http.js';
import { createOperator } from '../helpers/operator.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * The Deliverability console page's traffic shaping and IP warm-up, in a real browser against a
 * real appliance: an action shaping took (by the real reaction path) is listed and lifted; a
 * warming address shows its day and sent today against the allowance; a warm-up is started from
 * the pool addresses and stopped. Screenshot and axe-core.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const app = await startTestApp({
    config: {
      mta: {
        regions: { 'us-east-1': { ips: ['192.0.2.10', '192.0.2.11'] } },
        shaping: { settleSeconds: 0 },
        warmup: { schedule: { gmail: [50, 100, 200] } },
      },
    },
  });
  const operator = await createOperator(app, { name: 'Olga Operator' });
  const d = await openDashboard(app);
  await d.context.addCookies([
    { name: 'mailroom_session', value: operator.cookie.split('=')[1]!, url: app.url, httpOnly: true, sameSite: 'Lax' },
  ]);
  t.teardown(async () => {
    await d.close();
    await app.close();
  });
  const { page } = d;
  const WAIT = { timeout: 30_000 };
  const { shaping } = app.runtime.services;
  const card = (name: string) => page.getByRole('region', { name });

  t.test('actions in force with Lift; warm-up progress, start and stop', async (t) => {
    const slow = await shaping.actions.react(
      { key: 'gmail', name: 'gmail' },
      '192.0.2.10',
      '421-4.7.28 Our system has detected an unusual rate of unsolicited mail',
    );
    await shaping.actions.react({ key: 'yahoo', name: 'yahoo' }, '192.0.2.11', '421 4.7.0 [TSS04] Messages deferred');
    await shaping.warmup.start('192.0.2.10', new Date(Date.now() - 86_400_000).toISOString().slice(0, 10));
    const [warming] = [...(await shaping.warmup.warming()).values()];
    await shaping.warmup.take(warming!, { key: 'gmail', name: 'gmail' }, 60, 'transactional');
    await shaping.warmup.countAnswer('192.0.2.10', 'gmail', '2xx');

    await page.goto('/dashboard/admin/deliverability');
    await page.getByRole('heading', { level: 1, name: 'Deliverability' }).waitFor();
    const inForce = card('Traffic shaping').getByRole('table', { name: 'Shaping actions in force' });
    await inForce.getByRole('row').filter({ hasText: 'Slowed: 50% of the limits' }).waitFor(WAIT);
    await inForce.getByRole('row').filter({ hasText: 'Paused' }).waitFor(WAIT);
    const warmup = page.getByRole('region', { name: 'Warm-up of 192.0.2.10' });
    await warmup.getByText('day 2 of').waitFor(WAIT);
    const gmail = warmup.getByRole('row').filter({ hasText: 'gmail' });
    t.match(await gmail.textContent(), /60 of 100/, 'sent today against the allowance');
    t.match(await gmail.textContent(), /2xx: 1/, 'the answers');
    t.equal(await gmail.getByRole('meter').getAttribute('value'), '60');
    await page
      .getByRole('main')
      .getByText(/Block lists/)
      .first()
      .waitFor(WAIT);
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'console-deliverability-shaping');
    await assertAccessible(t, page, 'deliverability page with shaping and warm-up');

    await inForce.getByRole('button', { name: /Lift slowed of gmail 192\.0\.2\.10/ }).click();
    const recent = card('Traffic shaping').getByRole('table', { name: 'Recent shaping actions' });
    await recent.getByRole('row').filter({ hasText: 'Slowed' }).waitFor(WAIT);
    t.equal(await inForce.getByRole('row').filter({ hasText: 'Slowed' }).count(), 0, 'no longer in force');
    t.equal((await shaping.actions.repository.findById(slow!.id))!.endsAt <= new Date(), true, 'ended in the store');

    const form = page.getByRole('form', { name: 'Start a warm-up' });
    await form.getByLabel('Pool address').selectOption('192.0.2.11');
    await form.getByLabel('Start on day').fill('3');
    await form.getByRole('button', { name: 'Start warm-up' }).click();
    await page.getByRole('region', { name: 'Warm-up of 192.0.2.11' }).getByText('day 3 of').waitFor(WAIT);
    const listed = await request(app.url, '/admin/ips/warmup', { headers: { cookie: operator.cookie } });
    t.same(
      listed.body.data.map((w: { address: string; day: number }) => [w.address, w.day]),
      [
        ['192.0.2.10', 2],
        ['192.0.2.11', 3],
      ],
    );

    await page.getByRole('button', { name: 'Stop the warm-up of 192.0.2.10' }).click();
    await page.getByRole('region', { name: 'Warm-up of 192.0.2.10' }).waitFor({ state: 'detached', ...WAIT });
    t.same(
      [...(await shaping.warmup.repository.list())].map((w) => w.address),
      ['192.0.2.11'],
      'stopped in the store',
    );
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'console-deliverability-shaping-after');
    t.same(d.errors, [], 'no script error in the page');
  });
}
