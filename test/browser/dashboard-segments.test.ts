import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, dashboardForTeam, screenshot } from '../helpers/dashboard.js';

/**
 * The Segments pages in a real browser against a real appliance: a segment with two conditions
 * built with the keyboard only (Tab, typing, arrow keys in the selects, Enter on buttons), its
 * live count seen "counting…" and then equal to the API's POST /segments/preview and, once
 * created, to GET /segments/:id/metrics; a group added and removed; the members list, a contact
 * added and removed by hand; rename and delete. axe on every page, screenshots kept.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const { d, page, api } = await dashboardForTeam(t, 'Segments');
  const WAIT = { timeout: 30_000 };

  // Set-up outside any subtest throws instead of asserting.
  for (const property of [
    { key: 'plan', type: 'string' },
    { key: 'seats', type: 'number' },
  ]) {
    const created = await api('POST', '/contact-properties', property);
    if (created.status !== 201) throw new Error(`property: ${created.text}`);
  }
  for (let i = 1; i <= 24; i++) {
    const domain = i % 3 === 0 ? 'other.test' : 'acme.test';
    const created = await api('POST', '/contacts', {
      email: `p${i}@${domain}`,
      first_name: `P${i}`,
      properties: { seats: i, plan: i % 2 ? 'pro' : 'free' },
    });
    if (created.status !== 201) throw new Error(`contact: ${created.text}`);
  }
  const expectedFilter = {
    all: [
      { field: 'email', op: 'contains', value: '@acme.test' },
      { field: 'properties.seats', op: 'gte', value: 10 },
    ],
  };
  let segmentId = '';

  t.test('build a two-condition segment with the keyboard only; the live count matches the API', async (t) => {
    await page.goto('/dashboard/segments');
    await page.getByRole('heading', { level: 1, name: 'Segments' }).waitFor(WAIT);
    await page.getByText('No segments yet').waitFor(WAIT);
    t.ok(await page.getByRole('link', { name: 'Segments' }).first().isVisible(), 'in the navigation');
    await assertAccessible(t, page, 'segments list (empty)');

    // Keyboard only from here.
    await page.getByRole('button', { name: 'New segment' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'New segment' }).waitFor(WAIT);
    await watchForCounting(page);
    await page.getByLabel('Name').focus();
    await page.keyboard.type('Big Acme accounts');
    await tabTo(t, page, 'Field'); // condition 1 (past the checkbox and "Contacts matching")
    t.equal(await focusedValue(page), 'email', 'condition 1 tests the email by default');
    await tabTo(t, page, 'Operator');
    t.equal(await focusedValue(page), 'contains');
    await tabTo(t, page, 'Value');
    await page.keyboard.type('@acme.test');
    await tabTo(t, page, 'Add condition');
    await page.keyboard.press('Enter');
    // "Add condition" put the focus on the new condition's field.
    t.equal(await focusedLegend(page), 'Condition 2', 'focus moved into the new condition');
    await arrowTo(t, page, 'properties.seats');
    await tabTo(t, page, 'Operator');
    await arrowTo(t, page, 'gte');
    await tabTo(t, page, 'Value');
    await page.keyboard.type('10');

    const count = page.getByTestId('live-count').locator('.live-count-number');
    await count.waitFor(WAIT);
    const preview = await api('POST', '/segments/preview', { filter: expectedFilter });
    t.equal(preview.status, 200);
    await page.getByTestId('live-count').getByText(`${preview.body.contacts} contacts match`).waitFor(WAIT);
    t.equal(Number(await count.textContent()), preview.body.contacts, 'the live count is the API’s count');
    t.ok(preview.body.contacts > 0 && preview.body.contacts < 24, `a real selection (${preview.body.contacts})`);
    t.ok(await page.evaluate('window.__sawCounting === true'), '"counting…" was shown while the filter changed');

    // A group, added and removed with the keyboard: focus lands in it, then back on "Add condition".
    await tabTo(t, page, 'Add group');
    await page.keyboard.press('Enter');
    t.equal(await focusedLegend(page), 'Group 3', 'focus moved into the new group');
    await screenshot(page, 'segments-builder-group');
    await assertAccessible(t, page, 'segment builder with a nested group');
    await tabTo(t, page, 'Remove group');
    await page.keyboard.press('Enter');
    t.equal(await focusedText(page), 'Add condition', 'focus back on the group’s "Add condition"');
    await page.getByTestId('live-count').getByText(`${preview.body.contacts} contacts match`).waitFor(WAIT);
    await screenshot(page, 'segments-builder');
    await assertAccessible(t, page, 'segment builder');

    await tabTo(t, page, 'Create segment', 15);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/dashboard\/segments\/[0-9a-f-]{36}$/, WAIT);
    segmentId = page.url().split('/').at(-1)!;
    await page.getByRole('heading', { level: 1, name: 'Big Acme accounts' }).waitFor(WAIT);
    const saved = await api('GET', `/segments/${segmentId}`);
    t.same(saved.body.filter, expectedFilter, 'the filter the builder made is the one created');
    const metrics = await api('GET', `/segments/${segmentId}/metrics`);
    t.equal(metrics.body.contacts, preview.body.contacts, 'metrics agree with the preview');
    await page.getByTestId('segment-contacts').getByText(String(metrics.body.contacts)).waitFor(WAIT);
  });

  t.test('the segment page: filter in words, members, add and remove by hand, rename, delete', async (t) => {
    await page.goto(`/dashboard/segments/${segmentId}`);
    await page.getByRole('heading', { level: 1, name: 'Big Acme accounts' }).waitFor(WAIT);
    const filterCard = page.getByRole('region', { name: 'Filter' });
    await filterCard.getByText('All of:').waitFor(WAIT);
    t.ok(await filterCard.getByText('@acme.test').isVisible(), 'the email condition in words');
    const members = page.getByRole('table', { name: 'Segment members' });
    await members.getByText('p10@acme.test').waitFor(WAIT);
    t.notOk(await members.getByText('p12@other.test').isVisible(), 'a non-matching contact is not listed');
    await screenshot(page, 'segment-detail');
    await assertAccessible(t, page, 'segment page');

    const before = (await api('GET', `/segments/${segmentId}/metrics`)).body.contacts;
    await page.getByLabel('Add a contact', { exact: true }).fill('p3@other.test');
    await page.getByRole('button', { name: 'Add to segment' }).click();
    await members.getByText('p3@other.test').waitFor(WAIT);
    await page
      .getByTestId('segment-contacts')
      .getByText(String(before + 1))
      .waitFor(WAIT);
    t.equal((await api('GET', `/segments/${segmentId}/metrics`)).body.contacts, before + 1, 'added by hand');

    await page.getByRole('button', { name: 'Remove p3@other.test from the segment' }).click();
    await members.getByText('p3@other.test').waitFor({ state: 'detached', ...WAIT });
    t.equal((await api('GET', `/segments/${segmentId}/metrics`)).body.contacts, before, 'removed again');

    const rename = page.getByRole('form', { name: 'Rename segment' });
    await rename.getByLabel('Name').fill('Large Acme accounts');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { level: 1, name: 'Large Acme accounts' }).waitFor(WAIT);
    t.equal((await api('GET', `/segments/${segmentId}`)).body.name, 'Large Acme accounts');

    await page.getByRole('button', { name: 'Delete segment' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Its contacts are kept.').waitFor(WAIT);
    await assertAccessible(t, page, 'delete segment dialog');
    await dialog.getByRole('button', { name: 'Delete segment' }).click();
    await page.getByRole('heading', { level: 1, name: 'Segments' }).waitFor(WAIT);
    t.equal((await api('GET', `/segments/${segmentId}`)).status, 404, 'deleted');
  });

  t.test('no script errors', async (t) => {
    t.same(d.errors, []);
  });
}

/** Records whether the live count ever said "counting…" (it may last only a moment). */
async function watchForCounting(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    window.__sawCounting = false;
    new MutationObserver(() => {
      if (document.body.textContent.includes('counting…')) window.__sawCounting = true;
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  })()`);
}

/** The focused control's label (for= its id), else its aria-label, else its text. */
const FOCUSED = `(() => {
  const el = document.activeElement;
  if (!el) return '';
  const label = el.id ? document.querySelector('label[for="' + CSS.escape(el.id) + '"]')?.textContent : null;
  return (label ?? el.getAttribute('aria-label') ?? el.textContent ?? '').trim();
})()`;

async function tabTo(t: Test, page: Page, name: string, max = 12): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const focused = (await page.evaluate(FOCUSED)) as string;
    // Buttons named by aria-label ("Add condition to group 3") also match their visible text.
    const text = (await focusedText(page)) as string;
    if (focused === name || text === name) return;
  }
  t.fail(`"${name}" not reached with Tab`);
}

const focusedValue = (page: Page) => page.evaluate('document.activeElement?.value') as Promise<string>;
const focusedText = (page: Page) => page.evaluate('document.activeElement?.textContent?.trim()') as Promise<string>;
const focusedLegend = (page: Page) =>
  page.evaluate(
    "document.activeElement?.closest('fieldset')?.querySelector(':scope > legend')?.textContent",
  ) as Promise<string>;

/** ArrowDown in the focused select until it holds `value` (the keyboard's way to choose). */
async function arrowTo(t: Test, page: Page, value: string, max = 20): Promise<void> {
  for (let i = 0; i < max; i++) {
    if ((await focusedValue(page)) === value) return;
    await page.keyboard.press('ArrowDown');
  }
  t.fail(`"${value}" not reached with the arrow keys`);
}
