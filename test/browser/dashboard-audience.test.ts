import type { Locator, Page } from 'playwright-core';
import t from 'tap';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, dashboardForTeam, screenshot } from '../helpers/dashboard.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * The Contacts, Properties, Topics and Events pages in a real browser against a real appliance:
 * two properties of two types and a topic declared in the pages; a contact created, its typed
 * properties edited and saved, a topic subscription changed and seen in the consent history, an
 * email sent to it (through the API) listed on its page; an event defined with a schema and a
 * test event sent (refused for a wrong type, then accepted); a property used by an automation
 * (started by that event) refused deletion with the API's reason, an unused one deleted; the
 * test event on the contact's page; the contact erased. axe-core and a screenshot on each page.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const { app, d, page, team, api } = await dashboardForTeam(t, 'Audience');
  await markedVerifiedDomain(app, team.teamId, 'sender.test');
  const WAIT = { timeout: 30_000 };
  let contactId = '';
  // An email to the address the contact will have, sent through the API: its page lists it.
  const sent = await api('POST', '/emails', {
    from: 'Acme <hello@sender.test>',
    to: 'Ada <ada@dest.test>',
    subject: 'Your receipt',
    text: 'Thanks',
  });
  if (sent.status !== 200) throw new Error(`email: ${sent.text}`);

  t.test('declare a text and a number property, and a topic', async (t) => {
    await page.goto('/dashboard/properties');
    await page.getByRole('heading', { level: 1, name: 'Properties' }).waitFor(WAIT);
    await page.getByText('No properties yet').waitFor(WAIT);
    t.ok(await page.getByRole('link', { name: 'Properties' }).first().isVisible(), 'in the navigation');

    for (const [key, type, fallback] of [
      ['plan', 'Text (string)', 'free'],
      ['score', 'Number', '0'],
    ] as const) {
      await page.getByRole('button', { name: 'New property' }).click();
      const form = page.getByRole('form', { name: 'New property' });
      await form.getByLabel('Key').fill(key);
      await form.getByLabel('Type').selectOption({ label: type });
      await form.getByLabel('Fallback value').fill(fallback);
      if (key === 'score') {
        await shot(page, 'properties-create');
        await assertAccessible(t, page, 'properties create form');
      }
      await form.getByRole('button', { name: 'Declare property' }).click();
      await page
        .getByRole('row')
        .filter({ hasText: `{{{${key}}}}` })
        .waitFor(WAIT);
    }
    const declared = await api('GET', '/contact-properties');
    t.match(
      declared.body.data.map((p: { key: string; type: string; fallback_value: unknown }) => [
        p.key,
        p.type,
        p.fallback_value,
      ]),
      [
        ['score', 'number', 0],
        ['plan', 'string', 'free'],
      ],
      'both declared with their types and typed fallbacks',
    );
    await shot(page, 'properties-list');
    await assertAccessible(t, page, 'properties list');

    await page.goto('/dashboard/topics');
    await page.getByRole('heading', { level: 1, name: 'Topics' }).waitFor(WAIT);
    await page.getByRole('button', { name: 'New topic' }).click();
    const form = page.getByRole('form', { name: 'New topic' });
    await form.getByLabel('Name').fill('Product news');
    await form.getByLabel('Description').fill('What we shipped this month');
    await form.getByLabel('Default subscription').selectOption('opt_out');
    await form.getByLabel('Visibility').selectOption('public');
    await assertAccessible(t, page, 'topics create form');
    await form.getByRole('button', { name: 'Create topic' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Product news' });
    await row.getByText('not subscribed until they opt in').waitFor(WAIT);
    t.ok(await row.getByText('public', { exact: true }).isVisible(), 'public');

    // Edited in its dialog: the default is fixed, so not offered.
    await row.getByRole('button', { name: 'Edit Product news' }).click();
    const edit = page.getByRole('dialog').getByRole('form', { name: 'Edit topic Product news' });
    t.equal(await edit.getByLabel('Default subscription').count(), 0, 'the default is not editable');
    await edit.getByLabel('Description').fill('What we shipped');
    await edit.getByRole('button', { name: 'Save topic' }).click();
    await page
      .getByRole('row')
      .filter({ hasText: 'Product news' })
      .getByText('What we shipped', { exact: true })
      .waitFor(WAIT);
    await shot(page, 'topics-list');
    await assertAccessible(t, page, 'topics list');
  });

  t.test('create a contact, edit its typed properties, change a topic, see consent and emails', async (t) => {
    await page.goto('/dashboard/contacts');
    await page.getByRole('heading', { level: 1, name: 'Contacts' }).waitFor(WAIT);
    await page.getByText('No contacts yet').waitFor(WAIT);
    await assertAccessible(t, page, 'contacts list (empty)');
    await page.getByRole('button', { name: 'New contact' }).click();
    const form = page.getByRole('form', { name: 'New contact' });
    await form.getByLabel('Email address').fill('ada@dest.test');
    await form.getByLabel('First name').fill('Ada');
    await form.getByRole('button', { name: 'Create contact' }).click();
    await page.waitForURL(/\/dashboard\/contacts\/[0-9a-f-]{36}$/, WAIT);
    contactId = page.url().split('/').at(-1)!;
    await page.getByRole('heading', { level: 1, name: 'ada@dest.test' }).waitFor(WAIT);

    const details = page.getByRole('form', { name: 'Contact details' });
    const score = details.getByLabel('score');
    t.equal(await score.getAttribute('type'), 'number', 'a number property has a number input');
    t.equal(await details.getByLabel('plan').getAttribute('type'), 'text', 'a text property a text input');
    await details.getByLabel('plan').fill('pro');
    await score.fill('42.5');
    await details.getByLabel('Last name').fill('Lovelace');
    await details.getByRole('button', { name: 'Save contact' }).click();
    await page.getByText('Contact saved').waitFor(WAIT);
    const stored = await api('GET', `/contacts/${contactId}`);
    t.match(stored.body, { first_name: 'Ada', last_name: 'Lovelace', properties: { plan: 'pro', score: 42.5 } });
    t.equal(typeof stored.body.properties.score, 'number', 'the number saved as a number');

    // A property emptied is removed (its fallback then applies).
    await details.getByLabel('plan').fill('');
    await details.getByRole('button', { name: 'Save contact' }).click();
    await page.getByText('Contact saved').first().waitFor(WAIT);
    await t.resolves(
      waitUntil(async () => (await api('GET', `/contacts/${contactId}`)).body.properties.plan === undefined),
      'plan removed',
    );

    // A topic subscription, recorded with a consent record.
    const topics = page.getByRole('region', { name: 'Topics' });
    const choice = topics.getByLabel('Product news');
    t.equal(await choice.inputValue(), 'opt_out', 'the default (opt-out) before any choice');
    await choice.selectOption('opt_in');
    await page.getByText('Subscribed to Product news').waitFor(WAIT);
    const consent = page.getByRole('table', { name: 'Consent history' });
    const record = consent.getByRole('row').filter({ hasText: 'Product news' });
    await record.getByText('opted in').waitFor(WAIT);
    t.ok(await record.getByText('api', { exact: true }).isVisible(), 'with its source');
    const topicsNow = await api('GET', `/contacts/${contactId}/topics`);
    t.equal(topicsNow.body.data[0].subscription, 'opt_in', 'the API has the choice');

    // The global opt-out, recorded too; clearing it again warns before resubscribing.
    await details.getByLabel('Unsubscribed from all marketing email').check();
    await details.getByRole('button', { name: 'Save contact' }).click();
    await consent.getByText('unsubscribed from all').waitFor(WAIT);
    t.equal((await api('GET', `/contacts/${contactId}`)).body.unsubscribed, true, 'unsubscribed');
    await details.getByLabel('Unsubscribed from all marketing email').uncheck();
    await details.getByText('Saving resubscribes this contact').waitFor(WAIT);

    const emails = page.getByRole('table', { name: 'Emails sent to the contact' });
    await emails.getByRole('link', { name: 'Your receipt' }).waitFor(WAIT);
    t.ok(await page.getByRole('region', { name: 'Segments' }).getByText('In no segment.').isVisible(), 'no segment');
    await shot(page, 'contact-page');
    await assertAccessible(t, page, 'contact page');

    // The list finds it by the start of its address; another start finds nothing.
    await page.goto('/dashboard/contacts');
    await page.getByRole('link', { name: 'ada@dest.test' }).waitFor(WAIT);
    await page.getByLabel('Address starts with').fill('zed');
    await page.getByText('No contact matches').waitFor(WAIT);
    await page.getByLabel('Address starts with').fill('ADA@');
    await page.getByRole('link', { name: 'ada@dest.test' }).waitFor(WAIT);
    const row = page.getByRole('row').filter({ hasText: 'ada@dest.test' });
    t.ok(await row.getByText('Ada Lovelace').isVisible(), 'with its name');
    await shot(page, 'contacts-list');
    await assertAccessible(t, page, 'contacts list');
  });

  t.test('define an event with a schema and send a test event', async (t) => {
    await page.goto('/dashboard/events');
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor(WAIT);
    await page.getByText('No events yet').waitFor(WAIT);
    await page.getByRole('button', { name: 'New event' }).click();
    const form = page.getByRole('form', { name: 'New event' });
    await form.getByLabel('Name', { exact: true }).fill('order.placed');
    await form.getByRole('button', { name: 'Add a key' }).click();
    await form.getByLabel('Key 1', { exact: true }).fill('amount');
    await form.getByLabel('Type of key 1').selectOption('number');
    await form.getByRole('button', { name: 'Add a key' }).click();
    await form.getByLabel('Key 2', { exact: true }).fill('gift');
    await form.getByLabel('Type of key 2').selectOption('boolean');
    await shot(page, 'events-create');
    await assertAccessible(t, page, 'events create form');
    await form.getByRole('button', { name: 'Define event' }).click();
    const row = page.getByRole('row').filter({ hasText: 'order.placed' });
    await row.getByText('gift').waitFor(WAIT);
    t.same((await api('GET', '/events/order.placed')).body.schema, { amount: 'number', gift: 'boolean' });

    const send = page.getByRole('form', { name: 'Send a test event' });
    t.equal(await send.getByLabel('Event').inputValue(), 'order.placed');
    t.same(JSON.parse(await send.getByLabel('Payload (JSON)').inputValue()), { amount: 1, gift: true }, 'a sample');
    await send.getByLabel('Contact’s email address').fill('ada@dest.test');
    await send.getByLabel('Payload (JSON)').fill('{"amount": "lots"}');
    await send.getByRole('button', { name: 'Send event' }).click();
    const refused = page.getByRole('region', { name: 'Send a test event' }).getByRole('alert');
    await refused.getByText(/Refused \(422 validation_error\)/).waitFor(WAIT);
    t.match(await refused.textContent(), 'amount', 'the key in error named');

    await send.getByLabel('Payload (JSON)').fill('{"amount": 12.5, "gift": false}');
    await send.getByRole('button', { name: 'Send event' }).click();
    const accepted = page.getByRole('region', { name: 'Send a test event' }).getByRole('status');
    await accepted.getByText('Accepted (202).').waitFor(WAIT);
    t.match(await accepted.textContent(), '"event": "order.placed"', 'the API’s answer shown');
    await shot(page, 'events-sent');
    await assertAccessible(t, page, 'events page after a send');
  });

  t.test('a property an automation uses is refused deletion with the API’s reason', async (t) => {
    const automation = await api('POST', '/automations', {
      name: 'Score check',
      steps: [
        { key: 'start', type: 'trigger', config: { event_name: 'order.placed' } },
        {
          key: 'check',
          type: 'condition',
          config: { type: 'rule', field: 'properties.score', operator: 'gt', value: 10 },
        },
        { key: 'tag', type: 'contact_update', config: { first_name: 'High' } },
      ],
      connections: [
        { from: 'start', to: 'check' },
        { from: 'check', to: 'tag', type: 'condition_met' },
      ],
    });
    if (automation.status !== 201) throw new Error(`automation: ${automation.text}`);

    await page.goto('/dashboard/properties');
    await page.getByRole('button', { name: 'Delete score' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Delete property' }).click();
    const reason = dialog.getByRole('alert');
    await reason.getByText(/used by automation "Score check"/).waitFor(WAIT);
    t.match(await reason.textContent(), `automation "Score check" (${automation.body.id})`, 'names the automation');
    await shot(page, 'property-delete-refused');
    await assertAccessible(t, page, 'property delete refused');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    t.equal((await api('GET', '/contact-properties/score')).status, 200, 'still there');

    // An unused one is deleted.
    await page.getByRole('button', { name: 'Delete plan' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete property' }).click();
    await page.getByText('Property plan deleted').waitFor(WAIT);
    t.equal((await api('GET', '/contact-properties/plan')).status, 404, 'plan deleted');
  });

  t.test('delete the contact, with the erasure explained', async (t) => {
    await page.goto(`/dashboard/contacts/${contactId}`);
    await page.getByRole('heading', { level: 1, name: 'ada@dest.test' }).waitFor(WAIT);
    // The test event sent from the Events page, with its payload (the refused one is not there).
    const events = page.getByRole('table', { name: 'Events of the contact' });
    await events.getByText('{"amount":12.5,"gift":false}').waitFor(WAIT);
    t.equal(await events.getByRole('row').count(), 2, 'one event (and the header row)');
    t.ok(await events.getByText('order.placed').isVisible(), 'its name');
    await page.getByRole('button', { name: 'Delete contact' }).click();
    const dialog: Locator = page.getByRole('dialog');
    await dialog.getByText('Kept:').waitFor(WAIT);
    t.match(await dialog.textContent(), 'consent history, for three years', 'what is kept is said');
    await shot(page, 'contact-delete');
    await assertAccessible(t, page, 'contact delete dialog');
    await dialog.getByRole('button', { name: 'Erase contact' }).click();
    await page.waitForURL(/\/dashboard\/contacts$/, WAIT);
    await page.getByText('No contacts yet').waitFor(WAIT);
    t.equal((await api('GET', `/contacts/${contactId}`)).status, 404, 'erased');
    t.same(d.errors, [], 'no script error on any page');
  });
}

/** Polls `probe` (an API read after a write the page made) until it holds. */
async function waitUntil(probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error('condition never held');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate('window.scrollTo(0, 0)');
  await screenshot(page, name);
}
