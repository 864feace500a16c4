import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot, signInByCookie } from '../helpers/dashboard.js';
import { request } from '../helpers/http.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';

/**
 * The Broadcasts pages in a real browser against a real appliance with its MTA and an SMTP sink
 * on loopback: contacts and a segment made through the API; a broadcast written in the editor
 * with the keyboard only (Tab and typing, a merge variable inserted from the list), previewed
 * for one contact (their value in the rendered HTML, the footer's unsubscribe link), the
 * checklist failing then passing, sent to the segment, and its recipients seen `delivered` at
 * the sink and on the results page; another scheduled and canceled.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const fx = await startMtaFixture({ sinkHosts: ['127.0.0.10'] });
  const { app } = fx;
  const [sink] = fx.sinks as [NonNullable<(typeof fx.sinks)[0]>];
  fx.dns.add(
    { type: 'MX', name: 'dest.test', exchange: 'mx1.dest.test', priority: 10 },
    { type: 'A', name: 'mx1.dest.test', address: '127.0.0.10' },
  );
  const d = await openDashboard(app);
  const page: Page = d.page;
  t.teardown(async () => {
    await d.close();
    await fx.close();
  });
  await signInByCookie(app, d.context, fx.teamId);
  const api = (method: string, path: string, body?: unknown) =>
    request(app.url, path, { method, token: fx.token, body });
  const WAIT = { timeout: 30_000 };

  await api('POST', '/contact-properties', { key: 'city', type: 'string', fallback_value: 'your town' });
  const people = [
    { email: 'ada@dest.test', first_name: 'Ada', properties: { city: 'Paris' } },
    { email: 'bob@dest.test', first_name: 'Bob', properties: { city: 'Oslo' } },
    { email: 'cy@dest.test' },
  ];
  // Set-up outside any subtest throws instead of asserting (tap ends a test with no pending subtest).
  for (const person of people) {
    const created = await api('POST', '/contacts', person);
    if (created.status !== 201) throw new Error(`contact: ${created.text}`);
  }
  const segment = await api('POST', '/segments', {
    name: 'Destination readers',
    filter: { all: [{ field: 'email', op: 'contains', value: '@dest.test' }] },
  });
  if (segment.status !== 201) throw new Error(`segment: ${segment.text}`);
  let broadcastId = '';

  t.test('list, create a draft, write it with the keyboard, preview it for a contact', async (t) => {
    await page.goto('/dashboard/broadcasts');
    await page.getByRole('heading', { level: 1, name: 'Broadcasts' }).waitFor();
    await page.getByText('No broadcasts yet').waitFor();
    t.ok(await page.getByRole('link', { name: 'Broadcasts' }).first().isVisible(), 'in the navigation');
    await assertAccessible(t, page, 'broadcasts list (empty)');

    await page.getByRole('button', { name: 'New broadcast' }).click();
    const form = page.getByRole('form', { name: 'New broadcast' });
    await form.getByLabel('Name').fill('November news');
    await form.getByLabel('From').fill('News <news@sender.test>');
    await form.getByLabel('Subject').fill('Placeholder');
    await shot(page, 'broadcasts-create');
    await assertAccessible(t, page, 'broadcasts create form');
    await form.getByRole('button', { name: 'Create draft' }).click();
    await page.waitForURL(/\/dashboard\/broadcasts\/[0-9a-f-]{36}$/, WAIT);
    broadcastId = page.url().split('/').at(-1)!;
    await page.getByRole('heading', { level: 1, name: 'November news' }).waitFor();

    // Keyboard only from here: focus the first field, then Tab and type.
    const draft = page.getByRole('form', { name: 'Broadcast draft' });
    await draft.getByLabel('Name').focus();
    await tabTo(t, page, 'Segment');
    await page.keyboard.press('ArrowDown'); // the first segment after "Choose a segment"
    await tabTo(t, page, 'Subject');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('News for {{{FIRST_NAME|friend}}}');
    await tabTo(t, page, 'Preview text');
    await page.keyboard.type('What happened in November');
    await tabTo(t, page, 'HTML');
    await page.keyboard.type('<h1>Hello {{{FIRST_NAME|friend}}}</h1><p>News from ');
    // The variable from the list: Tab on to its button and press Enter; the caret comes back.
    await tabTo(t, page, 'Insert city', 30);
    await page.keyboard.press('Enter');
    await page.waitForFunction("document.activeElement?.tagName === 'TEXTAREA'");
    await page.keyboard.type('.</p>');
    t.equal(
      await draft.getByLabel('HTML').inputValue(),
      '<h1>Hello {{{FIRST_NAME|friend}}}</h1><p>News from {{{city}}}.</p>',
      'the HTML typed, with the variable inserted at the caret',
    );
    t.equal(await draft.getByLabel('Subject').inputValue(), 'News for {{{FIRST_NAME|friend}}}', 'the subject typed');
    t.equal(await draft.getByLabel('Segment').inputValue(), segment.body.id, 'the segment chosen with the arrow key');

    // Save with the keyboard.
    await tabTo(t, page, 'Save draft');
    await page.keyboard.press('Enter');
    await page.getByText('All changes saved').waitFor(WAIT);
    const saved = await api('GET', `/broadcasts/${broadcastId}`);
    t.match(saved.body, {
      subject: 'News for {{{FIRST_NAME|friend}}}',
      preview_text: 'What happened in November',
      segment_id: segment.body.id,
      html: '<h1>Hello {{{FIRST_NAME|friend}}}</h1><p>News from {{{city}}}.</p>',
    });
    // The live preview, rendered by the appliance for the chosen contact.
    await page.getByLabel('Preview for contact').selectOption({ label: 'ada@dest.test (Ada)' });
    const frame = page.frameLocator('iframe[title="Preview of the broadcast for the chosen contact"]');
    await frame.getByText('News from Paris.').waitFor(WAIT);
    t.ok(await frame.getByRole('heading', { name: 'Hello Ada' }).isVisible(), 'Ada’s first name in the preview');
    t.ok(await frame.getByRole('link', { name: 'Unsubscribe' }).isVisible(), 'the footer’s unsubscribe link');
    await page.getByTestId('preview-subject').getByText('News for Ada').waitFor(WAIT);
    await page.getByLabel('Preview for contact').selectOption({ label: 'cy@dest.test' });
    await frame.getByText('News from your town.').waitFor(WAIT);
    t.ok(await frame.getByRole('heading', { name: 'Hello friend' }).isVisible(), 'the inline default for Cy');

    // Live: an unsaved edit is rendered at once; the saved draft stays as it was until saved.
    await draft.getByLabel('HTML').fill('<p>Bye {{{FIRST_NAME|stranger}}}</p>');
    await frame.getByText('Bye stranger').waitFor(WAIT);
    await page.getByText('Unsaved changes').waitFor(WAIT);
    t.match((await api('GET', `/broadcasts/${broadcastId}`)).body.html, 'News from {{{city}}}', 'not saved');
    await draft.getByRole('button', { name: 'Discard changes' }).click();
    await frame.getByText('News from your town.').waitFor(WAIT);
    await shot(page, 'broadcast-editor-preview');
    await assertAccessible(t, page, 'broadcast editor with preview');
  });

  t.test('the checklist fails without a postal address, then passes; send to the segment', async (t) => {
    const checklist = page.getByRole('region', { name: 'Checklist' });
    await checklist.getByText('Not ready').waitFor(WAIT);
    const postal = checklist.getByRole('listitem').filter({ hasText: 'postal address' });
    t.ok(await postal.getByText('Failed').isVisible(), 'the postal address check fails');
    t.ok(await postal.getByRole('link', { name: 'Team' }).isVisible(), 'with where to fix it');
    await shot(page, 'broadcast-checklist-failing');
    await assertAccessible(t, page, 'broadcast checklist failing');

    // A refused send shows the gate's reason.
    await page.getByRole('button', { name: 'Send now' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Send now' }).click();
    await page.getByRole('dialog').getByText('Add a postal address').waitFor(WAIT);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

    await api('PATCH', '/team', {
      sender_name: 'News',
      postal_address: { line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' },
    });
    await page.reload();
    await checklist.getByText('Ready to send').waitFor(WAIT);
    t.equal(await checklist.getByText('Passed', { exact: true }).count(), 6, 'every check passes');

    await page.getByRole('button', { name: 'Send now' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Send now' }).click();
    await page.getByRole('region', { name: 'Broadcast', exact: true }).waitFor(WAIT);
    t.match((await api('GET', `/broadcasts/${broadcastId}`)).body.status, /^(queued|sending|sent)$/);

    // The scheduler's fan-out, then the MTA delivers to the sink.
    await fx.waitFor(async () => {
      await app.runtime.services.broadcastFanOut.runDue();
      return (await api('GET', `/broadcasts/${broadcastId}`)).body.status === 'sent';
    }, 'the broadcast sent');
    await fx.waitFor(async () => sink.messages.length >= 3, 'three messages at the sink');
    const ada = sink.messages.find((m) => m.to[0] === 'ada@dest.test')!.data.toString('utf8');
    t.match(ada, 'Subject: News for Ada', 'Ada’s own subject at the sink');
    t.match(ada, 'News from Paris.', 'and her city');

    await page.getByTestId('count-delivered').getByText('3').waitFor(WAIT);
    t.equal(await page.getByTestId('count-sent').textContent(), '3', 'three sent');
    const recipients = page.getByRole('table', { name: 'Delivered recipients' });
    await recipients.getByText('ada@dest.test').waitFor(WAIT);
    t.equal(await recipients.getByRole('row').count(), 4, 'the three delivered recipients are listed');
    await page.getByRole('tab', { name: 'Bounced' }).click();
    await page.getByText('No recipient is bounced.').waitFor(WAIT);
    await page.getByRole('tab', { name: 'Delivered' }).click();
    t.ok(await page.getByRole('img', { name: /Delivered, opened and clicked per hour/ }).isVisible(), 'the chart');
    await shot(page, 'broadcast-results');
    await assertAccessible(t, page, 'broadcast results');

    await page.goto('/dashboard/broadcasts');
    const row = page.getByRole('row').filter({ hasText: 'November news' });
    await row.getByText('sent', { exact: true }).waitFor(WAIT);
    t.ok(await row.getByText('Destination readers').isVisible(), 'the segment by name');
    await shot(page, 'broadcasts-list');
    await assertAccessible(t, page, 'broadcasts list');
  });

  t.test('schedule a ready draft, then cancel it', async (t) => {
    const created = await api('POST', '/broadcasts', {
      name: 'Later news',
      segment_id: segment.body.id,
      from: 'News <news@sender.test>',
      subject: 'Later',
      html: '<p>Later</p>',
    });
    await page.goto(`/dashboard/broadcasts/${created.body.id}`);
    await page.getByRole('region', { name: 'Checklist' }).getByText('Ready to send').waitFor(WAIT);
    const at = new Date(Date.now() + 2 * 86_400_000);
    const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel('Schedule for (your local time)').fill(local);
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Schedule' }).click();
    const summary = page.getByRole('region', { name: 'Broadcast', exact: true });
    await summary.getByText('scheduled', { exact: true }).waitFor(WAIT);
    const stored = await api('GET', `/broadcasts/${created.body.id}`);
    t.equal(stored.body.status, 'scheduled');
    t.equal(stored.body.scheduled_at.slice(0, 16), at.toISOString().slice(0, 16), 'at the time chosen');
    await shot(page, 'broadcast-scheduled');
    await assertAccessible(t, page, 'broadcast scheduled');

    await summary.getByRole('button', { name: 'Cancel broadcast' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel broadcast' }).click();
    await summary.getByText('canceled', { exact: true }).waitFor(WAIT);
    t.equal((await api('GET', `/broadcasts/${created.body.id}`)).body.status, 'canceled');
    t.same(d.errors, [], 'no script error on any page');
  });
}

/**
 * Presses Tab until the focus is on the control named `name` (its
 * label or, for a button, its accessible name), and asserts it got there within `max` presses.
 */
async function tabTo(t: Test, page: Page, name: string, max = 10): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    // The focused control's label (for= its id), else its aria-label, else its text. A string:
    // this file is type-checked without the DOM library.
    const focused = (await page.evaluate(`(() => {
      const el = document.activeElement;
      if (!el) return '';
      const label = el.id ? document.querySelector('label[for="' + CSS.escape(el.id) + '"]')?.textContent : null;
      return (label ?? el.getAttribute('aria-label') ?? el.textContent ?? '').trim();
    })()`)) as string;
    if (focused === name) return;
  }
  t.fail(`the keyboard reached "${name}" within ${max} presses of Tab`);
  throw new Error(`focus never reached ${name}`);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate('window.scrollTo(0, 0)');
  await screenshot(page, name);
}
