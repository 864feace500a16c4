import type { Page } from 'playwright-core';
import t from 'tap';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot, signInByCookie } from '../helpers/dashboard.js';
import { request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * The Templates pages in a real browser against a real appliance: a template is created, its
 * HTML typed into the code editor with a {{FIRST_NAME}} placeholder declared with a fallback,
 * the preview follows the sample value, the draft is saved and diffed against the published
 * version, published, changed again (the diff read from the API, so it survives a reload; the
 * versions card lists both), and a test is sent and followed to the email. Then the
 * same person's work with the keyboard alone: sign in, reach Templates, open one, send a test.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const app = await startTestApp();
  const team = await app.createTeam('Templates');
  const domain = `tpl-${Math.random().toString(36).slice(2, 8)}.test`;
  await markedVerifiedDomain(app, team.teamId, domain);
  const d = await openDashboard(app);
  const page: Page = d.page;
  t.teardown(async () => {
    await d.close();
    await app.close();
  });
  const api = (path: string, options: { method?: string; body?: unknown } = {}) =>
    request(app.url, path, { ...options, token: team.token });
  const WAIT = { timeout: 15_000 };
  const SIMULATOR = 'delivered@simulator.mailroom.localhost';

  t.test('create, edit with a variable, preview, save, diff, publish, send a test', async (t) => {
    await signInByCookie(app, d.context, team.teamId);
    await page.goto('/dashboard/templates');
    await page.getByRole('heading', { level: 1, name: 'Templates' }).waitFor();
    await page.getByText('No templates yet').waitFor();

    // Create: the starters are offered, a blank page is the default.
    await page.getByRole('button', { name: 'New template' }).click();
    const startFrom = page.getByLabel('Start from');
    await startFrom.locator('option', { hasText: 'Starter: Welcome' }).waitFor({ state: 'attached' });
    t.ok(await startFrom.locator('option', { hasText: 'Starter: Receipt' }).count(), 'GET /starters fills the choice');
    await page.getByLabel('Name').fill('Welcome mail');
    await page.getByRole('button', { name: 'Create the draft' }).click();
    await page.waitForURL(/\/dashboard\/templates\/[0-9a-f-]{36}$/, WAIT);
    const id = page.url().split('/').at(-1)!;
    await page.getByRole('heading', { level: 1, name: 'Welcome mail' }).waitFor();
    t.equal((await api(`/templates/${id}`)).body.status, 'draft', 'created as a draft');

    // Edit: the HTML typed into the editor (a real textarea), highlighted as it is typed.
    const details = page.getByRole('region', { name: 'Details' });
    await details.getByLabel('Subject').fill('Welcome, {{FIRST_NAME}}');
    await details.getByLabel('From').fill(`Team <hello@${domain}>`);
    const html = page.getByLabel('HTML body');
    await html.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('<p class="greeting">Hello {{FIRST_NAME}},</p>\n<p>welcome aboard.</p>');
    t.equal(
      await html.inputValue(),
      '<p class="greeting">Hello {{FIRST_NAME}},</p>\n<p>welcome aboard.</p>',
      'the textarea holds what was typed',
    );
    const highlight = page.locator('.code-editor-highlight');
    t.equal(
      await highlight.locator('.tok-placeholder').first().textContent(),
      '{{FIRST_NAME}}',
      'placeholder coloured',
    );
    t.equal(await highlight.locator('.tok-tag').first().textContent(), 'p', 'tag coloured');
    t.equal(await highlight.locator('.tok-attr').first().textContent(), 'class', 'attribute coloured');
    t.equal(await highlight.locator('.tok-string').first().textContent(), '"greeting"', 'value coloured');
    t.equal(await highlight.textContent(), `${await html.inputValue()} `, 'the coloured copy is the same text');

    // The undeclared placeholder is named with its fix; declared with a fallback and a sample.
    await page.getByText('{{FIRST_NAME}} is used but not declared.').waitFor();
    await page.getByRole('button', { name: 'Declare FIRST_NAME' }).click();
    await page.getByLabel('Fallback of FIRST_NAME').fill('there');
    const preview = page.frameLocator('iframe[title="Preview of the template\'s HTML"]');
    await preview.getByText('Hello there,').waitFor(WAIT);
    t.pass('the preview takes the fallback when there is no sample');
    await page.getByLabel('Sample value of FIRST_NAME').fill('Ada <Lovelace>');
    await preview.getByText('Hello Ada <Lovelace>,').waitFor(WAIT);
    t.pass('the preview follows the sample value, escaped as the appliance escapes it');
    t.match(await page.locator('.preview-subject').textContent(), 'Welcome, Ada <Lovelace>', 'subject rendered');
    t.equal(await page.getByRole('list', { name: 'Placeholder problems' }).count(), 0, 'no problem left');
    await page.getByLabel('Sample value of FIRST_NAME').fill('Ada');
    await preview.getByText('Hello Ada,').waitFor(WAIT);
    // In view, as a person sees it: Chromium does not paint a frame that never was (full-page captures included).
    await page.getByRole('heading', { name: 'Preview' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'templates-editor');
    t.equal(
      await page.locator('iframe[title="Preview of the template\'s HTML"]').count(),
      1,
      'the preview frame is titled',
    );
    await assertAccessible(t, page, 'template editor with preview');

    // Save: the draft is stored as typed.
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft saved').waitFor(WAIT);
    const saved = (await api(`/templates/${id}`)).body;
    t.equal(saved.html, '<p class="greeting">Hello {{FIRST_NAME}},</p>\n<p>welcome aboard.</p>');
    t.equal(saved.subject, 'Welcome, {{FIRST_NAME}}');
    t.equal(saved.from, `Team <hello@${domain}>`);
    t.same(saved.variables, [{ key: 'FIRST_NAME', type: 'string', fallback_value: 'there' }], 'variable saved');
    t.equal(await page.getByLabel('Sample value of FIRST_NAME').inputValue(), 'Ada', 'the sample survives the save');

    // Nothing published yet: every line of the draft is new.
    const diff = page.getByRole('region', { name: 'Changes from the published version' });
    await diff.getByText('Nothing is published yet').waitFor();
    t.ok(await diff.locator('.diff-added', { hasText: 'welcome aboard.' }).count(), 'a new line is marked added');
    t.equal(await diff.locator('.diff-removed').count(), 0, 'nothing removed');
    t.equal(
      await page.getByRole('button', { name: 'Send the test' }).isDisabled(),
      true,
      'a draft cannot be sent: the button says why',
    );

    // Publish; then a change shows against the published version, line by line.
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('Published: sends use this version now').waitFor(WAIT);
    t.equal((await api(`/templates/${id}`)).body.status, 'published');
    await diff.getByText('No changes: the editor matches the published version.').waitFor();
    await html.click();
    await page.keyboard.press('Control+End');
    for (let i = 0; i < 'aboard.</p>'.length; i++) await page.keyboard.press('Backspace');
    await page.keyboard.type('back!</p>');
    await diff.getByText('1 line added, 1 line removed.').waitFor();
    t.match(await diff.locator('.diff-removed').textContent(), /removed: <p>welcome aboard\.<\/p>/, 'old line');
    t.match(await diff.locator('.diff-added').textContent(), /added: <p>welcome back!<\/p>/, 'new line');
    t.match(await diff.locator('.diff-removed .diff-sign').textContent(), '−', 'a sign, not only a colour');
    await page.getByRole('heading', { name: 'Preview' }).scrollIntoViewIfNeeded();
    await preview.getByText('welcome back!').waitFor();
    await screenshot(page, 'templates-diff');
    await assertAccessible(t, page, 'template editor with a diff');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Saved as a draft').waitFor(WAIT);
    const reopened = (await api(`/templates/${id}`)).body;
    t.equal(reopened.has_unpublished_versions, true, 'the published version keeps sending');
    await diff.getByText('1 line added, 1 line removed.').waitFor();
    t.pass('the diff against the published version stays after the save');

    // A reload: the published version is read from the API (GET /templates/:id/versions), not memory.
    const versionReads: string[] = [];
    const onRequest = (req: { url: () => string }) => {
      if (/\/api\/v1\/templates\/[^/]+\/versions/.test(req.url())) versionReads.push(req.url());
    };
    page.on('request', onRequest);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Welcome mail' }).waitFor(WAIT);
    await diff.getByText('1 line added, 1 line removed.').waitFor(WAIT);
    t.match(await diff.locator('.diff-removed').textContent(), /removed: <p>welcome aboard\.<\/p>/, 'after a reload');
    t.match(await diff.locator('.diff-added').textContent(), /added: <p>welcome back!<\/p>/, 'after a reload');
    page.off('request', onRequest);
    t.ok(
      versionReads.some((url) => /\/versions\/[0-9a-f-]{36}$/.test(url)),
      'the published version’s content came from GET /templates/:id/versions/:version_id',
    );

    // The versions card: both versions, newest first, with their flags.
    const versions = page.getByRole('region', { name: 'Versions' });
    const rows = versions.getByRole('row');
    await rows.nth(2).waitFor(WAIT);
    t.equal(await rows.count(), 3, 'a header and two versions');
    t.match(await rows.nth(1).textContent(), /Version 2\s*current/, 'version 2 is the current one');
    t.notMatch(await rows.nth(1).textContent(), /published/, 'version 2 is not published');
    t.match(await rows.nth(2).textContent(), /Version 1\s*published/, 'version 1 is the published one');
    t.notMatch(await rows.nth(2).textContent(), /current/, 'version 1 is not current');
    const compare1 = versions.getByRole('button', { name: 'Compare the editor with version 1' });
    const compare2 = versions.getByRole('button', { name: 'Compare the editor with version 2' });
    t.equal(await compare1.getAttribute('aria-pressed'), 'true', 'the published version is compared by default');
    await versions.scrollIntoViewIfNeeded();
    await screenshot(page, 'templates-versions');
    await assertAccessible(t, page, 'template editor with versions after a reload');

    // Comparing with the draft version itself: no change (nothing typed since the save).
    await compare2.click();
    const diff2 = page.getByRole('region', { name: 'Changes from version 2' });
    await diff2.getByText('No changes: the editor matches version 2.').waitFor(WAIT);
    t.equal(await compare2.getAttribute('aria-pressed'), 'true', 'the chosen version is marked');
    t.match(page.url(), /compare=[0-9a-f-]{36}/, 'the choice is in the URL');
    await diff2.getByRole('button', { name: 'Compare with the published version' }).click();
    await diff.getByText('1 line added, 1 line removed.').waitFor(WAIT);
    t.notMatch(page.url(), 'compare=', 'back to the published version');
    // Sample values live in the page only (they are not template content): given again after the reload.
    await page.getByLabel('Sample value of FIRST_NAME').fill('Ada');

    // A test: the published version with the sample, followed to the email.
    const form = page.getByRole('form', { name: 'Send a test' });
    await form.getByLabel('To').fill(SIMULATOR);
    await form.getByRole('button', { name: 'Send the test' }).click();
    const accepted = form.getByText(/^Accepted: email/);
    await accepted.waitFor(WAIT);
    const emailId = (await form.locator('.alert code').textContent())!;
    const email = (await api(`/emails/${emailId}`)).body;
    t.equal(email.subject, 'Welcome, Ada', 'sent with the sample value');
    t.same(email.to, [SIMULATOR]);
    t.match(email.html, 'welcome aboard.', 'from the published version, not the draft');
    t.notMatch(email.html, 'welcome back', 'the unpublished change is not sent');
    await form.getByRole('link', { name: 'Open the email' }).click();
    await page.waitForURL(new RegExp(`/dashboard/emails/${emailId}$`), WAIT);
    t.pass('the link opens the email');

    // The list: the template with its status; duplicate, and delete the copy after a question.
    await page.goto('/dashboard/templates');
    const row = page.getByRole('row', { name: /Welcome mail/ }).first();
    await row.waitFor();
    t.match(await row.textContent(), 'published', 'status shown');
    await page.getByRole('button', { name: 'Duplicate Welcome mail' }).click();
    await page.getByRole('heading', { level: 1, name: 'Welcome mail (copy)' }).waitFor(WAIT);
    await page.getByRole('link', { name: 'Templates' }).first().click();
    await page.getByRole('link', { name: 'Welcome mail (copy)' }).waitFor();
    await screenshot(page, 'templates-list');
    await assertAccessible(t, page, 'templates list');
    await page.getByRole('button', { name: 'Delete Welcome mail (copy)' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Welcome mail (copy)”?' });
    await dialog.waitFor();
    await assertAccessible(t, page, 'delete confirmation');
    await dialog.getByRole('button', { name: 'Delete the template' }).click();
    await page.getByRole('link', { name: 'Welcome mail (copy)' }).waitFor({ state: 'detached', ...WAIT });
    const left = (await api('/templates')).body.data.map((item: { name: string }) => item.name);
    t.same(left, ['Welcome mail'], 'only the copy was deleted');

    // Filters live in the URL.
    await page.getByLabel('Status').selectOption('draft');
    await page.getByText('No template matches').waitFor();
    t.match(page.url(), 'status=draft');
    t.same(d.errors, [], 'no page error');
  });

  t.test('keyboard only: sign in, reach Templates, open one, send a test', async (t) => {
    const email = `keys-${Math.random().toString(36).slice(2, 8)}@example.test`;
    await app.runtime.services.accounts.createByOperator({
      email,
      teamId: team.teamId,
      role: 'member',
      password: 'correct horse battery',
    });
    const created = await api('/templates', {
      method: 'POST',
      body: {
        name: 'Order shipped',
        from: `Shop <shop@${domain}>`,
        subject: 'Your order {{ORDER}} is on its way',
        html: '<p>Order {{ORDER}} has left the warehouse.</p>',
        variables: [{ key: 'ORDER', type: 'string', fallback_value: 'of yours' }],
      },
    });
    t.equal(created.status, 201);
    t.equal((await api(`/templates/${created.body.id}/publish`, { method: 'POST' })).status, 200);

    const context = await d.browser.newContext({ baseURL: app.url, viewport: { width: 1280, height: 860 } });
    const keys = await context.newPage();
    const errors: string[] = [];
    keys.on('pageerror', (err) => errors.push(err.message));
    t.teardown(() => context.close());
    type Focus = { tag: string; text: string; name: string; form: string };
    // Evaluated in the page (as text: the tests' TypeScript has no DOM types).
    const focused = () =>
      keys.evaluate<Focus>(`(() => {
        const el = document.activeElement;
        return {
          tag: el ? el.tagName : '',
          text: el ? (el.textContent || '').trim() : '',
          name: (el && el.getAttribute('name')) || '',
          form: (el && el.closest('form') && el.closest('form').getAttribute('aria-label')) || '',
        };
      })()`);
    /** Presses Tab (or Shift+Tab) until the focused element is the one wanted. */
    const tabTo = async (wanted: (f: Focus) => boolean, key = 'Tab', max = 200) => {
      for (let i = 0; i < max; i++) {
        if (wanted(await focused())) return i;
        await keys.keyboard.press(key);
      }
      throw new Error(`not reached with ${key}: last focus ${JSON.stringify(await focused())}`);
    };

    await keys.goto('/dashboard/login');
    await keys.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await tabTo((f) => f.name === 'email');
    await keys.keyboard.type(email);
    await keys.keyboard.press('Tab');
    await keys.keyboard.type('correct horse battery');
    await keys.keyboard.press('Enter');
    await keys.waitForURL(/\/dashboard\/emails/, WAIT);

    // Through the navigation: past Templates and back with Shift+Tab, then Enter.
    await tabTo((f) => f.tag === 'A' && f.text === 'Templates');
    await keys.keyboard.press('Tab');
    await tabTo((f) => f.tag === 'A' && f.text === 'Templates', 'Shift+Tab', 3);
    await keys.keyboard.press('Enter');
    await keys.getByRole('heading', { level: 1, name: 'Templates' }).waitFor(WAIT);
    await keys.getByRole('link', { name: 'Order shipped' }).waitFor();
    await tabTo((f) => f.tag === 'A' && f.text === 'Order shipped');
    await keys.keyboard.press('Enter');
    await keys.getByRole('heading', { level: 1, name: 'Order shipped' }).waitFor(WAIT);

    // To the test form, past every field of the editor (the code editor does not trap Tab).
    const steps = await tabTo((f) => f.form === 'Send a test' && f.name === 'to');
    t.ok(steps > 5, 'the editor fields were passed on the way');
    await keys.keyboard.press('Control+A');
    await keys.keyboard.type(SIMULATOR);
    await tabTo((f) => f.tag === 'BUTTON' && f.text === 'Send the test', 'Tab', 5);
    await keys.keyboard.press('Space');
    await keys.getByText(/^Accepted: email/).waitFor(WAIT);
    const emailId = (await keys.locator('form[aria-label="Send a test"] .alert code').textContent())!;

    const listed = await api('/emails?limit=10');
    const sent = listed.body.data.find((item: { id: string }) => item.id === emailId);
    t.ok(sent, 'GET /emails lists the email the keyboard sent');
    t.same(sent?.to, [SIMULATOR]);
    t.equal(sent?.subject, 'Your order of yours is on its way', 'the fallback filled the subject');
    await assertAccessible(t, keys, 'template editor after a keyboard send');
    t.same(errors, [], 'no page error');
  });
}
