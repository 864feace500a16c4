import t from 'tap';
import { ContactImportRunner, type ImportRunnerDeps } from '../../core/audience/imports/contact-import.runner.js';
import { browserSkipReason } from '../helpers/browser.js';
import { importWorker } from '../helpers/contact-imports.js';
import { assertAccessible, dashboardForTeam, screenshot } from '../helpers/dashboard.js';

/**
 * The Imports pages in a real browser against a real appliance: a CSV of 500 contacts with two
 * bad rows chosen in the file input, read in the browser (rows counted, columns mapped, the two
 * bad values flagged by the type check before anything is sent), started, and followed: the
 * import is run the way the scheduler runs it, in batches of 100, stopped after the first batch
 * (a shutdown) so the bar shows 100 of 500, then taken over by a new run, so the page says
 * "Resumed after a restart" and the bar reaches done with the two failed rows listed with their
 * reasons, as the API reports them.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const { app, d, page, api } = await dashboardForTeam(t, 'Imports');
  const WAIT = { timeout: 30_000 };
  const created = await api('POST', '/contact-properties', { key: 'seats', type: 'number' });
  if (created.status !== 201) throw new Error(`property: ${created.text}`);

  // 500 contacts; row 58 has a seats value that is not a number, row 322 no valid address.
  const lines = ['email,first_name,seats'];
  for (let i = 1; i <= 500; i++) {
    const email = i === 321 ? 'not-an-email' : `person${i}@example.com`;
    lines.push(`${email},Person ${i},${i === 57 ? 'many' : i % 40}`);
  }
  const csv = Buffer.from(`${lines.join('\n')}\n`);

  // The scheduler's runner with small batches, so the bar can be seen part-way.
  const deps = (app.runtime.services.contactImportRunner as unknown as { deps: ImportRunnerDeps }).deps;
  const runner = new ContactImportRunner({ ...deps, batchSize: 100 });

  t.test('upload, map, see the type check, start, follow the progress to done, read the failures', async (t) => {
    await page.goto('/dashboard/imports');
    await page.getByRole('heading', { level: 1, name: 'Imports' }).waitFor(WAIT);
    await page.getByText('No imports yet').waitFor(WAIT);
    t.ok(await page.getByRole('link', { name: 'Imports' }).first().isVisible(), 'in the navigation');
    await assertAccessible(t, page, 'imports list (empty)');

    await page.getByRole('button', { name: 'New import' }).click();
    const form = page.getByRole('form', { name: 'New import' });
    await form.getByLabel('CSV file').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: csv });
    await form.getByText('rows and 3 columns').waitFor(WAIT);
    t.match(await form.getByRole('status').first().textContent(), /500 rows and 3 columns/, 'rows counted');
    t.equal(await form.getByLabel('Import column seats as').inputValue(), 'property:seats', 'mapped by name');
    t.equal(await form.getByLabel('Import column email as').inputValue(), 'email');
    // The type check, before anything is sent.
    const seats = await form.getByTestId('check-seats').textContent();
    t.match(seats, /Will fail 1 row will fail: not a number .*row 58: "many"/, 'the non-numeric seats value flagged');
    const email = await form.getByTestId('check-email').textContent();
    t.match(
      email,
      /Will fail 1 row will fail: not an email address \(row 322: "not-an-email"\)/,
      'the bad address flagged',
    );
    t.match(await form.getByTestId('check-first_name').textContent(), /OK Every value is a name/, 'first_name by name');
    // Left out here, the appliance would still read a column named like a field: said so.
    await form.getByLabel('Import column first_name as').selectOption('');
    await form.getByTestId('check-first_name').getByText('Read anyway').waitFor(WAIT);
    await form.getByLabel('Import column first_name as').selectOption('first_name');
    await form.getByTestId('check-first_name').getByText('Every value is a name').waitFor(WAIT);
    await screenshot(page, 'imports-mapping');
    await assertAccessible(t, page, 'import mapping with the type check');

    await form.getByRole('button', { name: 'Start import' }).click();
    await page.waitForURL(/\/dashboard\/imports\/[0-9a-f-]{36}\?rows=500$/, WAIT);
    const id = new URL(page.url()).pathname.split('/').at(-1)!;
    const progress = page.getByRole('progressbar', { name: 'Progress' });
    await page.getByTestId('import-progress-text').getByText('Waiting for the scheduler').waitFor(WAIT);

    // A first run commits one batch and is stopped (a shutdown): 100 of 500.
    const stopping = new AbortController();
    stopping.abort();
    await runner.runNext(await importWorker(app.runtime, stopping.signal));
    await page.getByTestId('import-progress-text').getByText('100 of 500 rows done (20 %)').waitFor(WAIT);
    t.equal(await progress.getAttribute('aria-valuenow'), '100');
    t.equal(await progress.getAttribute('aria-valuemax'), '500');
    await screenshot(page, 'import-progress');
    t.equal(await page.getByTestId('import-resumed').count(), 0, 'not resumed yet');

    // A new run takes it over and finishes it.
    await runner.runNext(await importWorker(app.runtime));
    await page.getByTestId('import-progress-text').getByText('500 of 500 rows done (100 %)').waitFor(WAIT);
    t.equal(await progress.getAttribute('aria-valuenow'), '500');
    await page.getByTestId('import-resumed').getByText('Resumed after a restart').waitFor(WAIT);
    const status = page.getByRole('region', { name: /Status/ });
    await status.getByText('completed').first().waitFor(WAIT);
    t.match(await status.textContent(), /2 failed.*498 created/, 'counts shown');

    const failures = page.getByRole('table', { name: 'Failed rows' });
    await failures.getByText('not a valid email address').waitFor(WAIT);
    const shown = await failures.locator('tbody tr').allTextContents();
    const fromApi = (await api('GET', `/contacts/imports/${id}/failures`)).body.data;
    t.equal(fromApi.length, 2, 'two failed rows');
    t.same(
      shown,
      fromApi.map((f: { row: number; email: string; reason: string }) => `${f.row}${f.email}${f.reason}`),
      'the failures report is the API’s',
    );
    t.match(shown, [
      /^58person57@example.com"seats" is a number property: "many" is not a number$/,
      /^322not-an-email/,
    ]);
    const done = (await api('GET', `/contacts/imports/${id}`)).body;
    t.match(done, { status: 'completed', counts: { total: 500, created: 498, failed: 2 } });
    t.type(done.resumed_at, 'string');
    await screenshot(page, 'import-done');
    await assertAccessible(t, page, 'import page, done');

    await page.getByRole('link', { name: 'Imports' }).first().click();
    const list = page.getByRole('table', { name: /Imports/ });
    await list.getByText('resumed').waitFor(WAIT);
    t.match(await list.locator('tbody tr').first().textContent(), /completed.*resumed.*500.*498.*0.*0.*2/);
    await screenshot(page, 'imports-list');
    await assertAccessible(t, page, 'imports list');
  });

  t.test('no script errors', async (t) => {
    t.same(d.errors, []);
  });
}
