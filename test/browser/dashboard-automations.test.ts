import type { Page } from 'playwright-core';
import t from 'tap';
import { browserSkipReason } from '../helpers/browser.js';
import { movableClock } from '../helpers/clock.js';
import { assertAccessible, openDashboard, screenshot, signInByCookie } from '../helpers/dashboard.js';
import { request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * The Automations pages in a real browser against a real appliance: an automation is built on
 * the canvas (a trigger on a custom event, a delay, a condition, a send-email step), connected by
 * dragging and by the side panel's selects; saving shows the API's validation error on the
 * send-email step that has no template; fixed, created and started; the event is sent through
 * the API and the run followed to completed on its page, its path lit on the canvas. The run
 * engine is driven the way test/api/automations/runs.test.ts drives it: the scheduler's tick,
 * and a movable clock instead of waiting out the delay.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const clock = movableClock();
  const app = await startTestApp({ clock });
  const team = await app.createTeam('Automations', 'unlimited');
  const d = await openDashboard(app);
  const page: Page = d.page;
  t.teardown(async () => {
    await d.close();
    await app.close();
  });
  const api = (path: string, options: { method?: string; body?: unknown } = {}) =>
    request(app.url, path, { ...options, token: team.token });
  const tick = () => app.runtime.services.automationRuns.tick(60_000);
  const WAIT = { timeout: 20_000 };

  /** Setup through the API: a refusal stops the test (no assertion before the subtests: tap ends the plan). */
  const must = async (path: string, body?: unknown) => {
    const res = await api(path, { method: 'POST', body });
    if (res.status >= 300) throw new Error(`setup ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string };
  };
  // What the graph names: a custom event, a published template (from a verified domain), a contact.
  await markedVerifiedDomain(app, team.teamId, 'flows.example.com');
  await must('/events', { name: 'user.signed_up' });
  const template = await must('/templates', {
    name: 'Welcome mail',
    subject: 'Welcome',
    html: '<p>Hi</p>',
    from: 'Acme <hello@flows.example.com>',
  });
  await must(`/templates/${template.id}/publish`);
  const contact = { body: await must('/contacts', { email: 'ada@example.com', first_name: 'Ada' }) };
  await signInByCookie(app, d.context, team.teamId);

  const node = (key: string) => page.locator(`.react-flow__node[data-id="${key}"]`);
  /** The selected step's side panel (node labels on the canvas also name steps). */
  const panel = page.getByRole('complementary', { name: 'Step settings' });
  let automationId = '';

  t.test('build a graph on the canvas, see the validation error on its step, fix it, create it', async (t) => {
    await page.goto('/dashboard/automations');
    await page.getByRole('heading', { level: 1, name: 'Automations' }).waitFor();
    await page.getByText('No automations yet').waitFor();
    await assertAccessible(t, page, 'automations list (empty)');

    await page.getByRole('button', { name: 'New automation' }).click();
    await page.getByRole('heading', { level: 1, name: 'New automation' }).waitFor();
    await page.getByLabel('Name').fill('Welcome flow');
    // The trigger is selected at the start: its panel is open.
    await panel.getByLabel('Event', { exact: true }).fill('user.signed_up');
    await page.getByRole('button', { name: '+ Delay' }).click();
    await node('delay_1').waitFor();
    await panel.getByLabel('Wait for', { exact: true }).fill('1 hour');

    // Connecting: undo the automatic trigger → delay edge with the keyboard's select, then drag it back.
    await panel.getByLabel('Edit step', { exact: true }).selectOption('trigger');
    await panel.getByLabel('Next step', { exact: true }).selectOption('');
    await page.locator('.react-flow__edge').first().waitFor({ state: 'detached' });
    await node('trigger')
      .locator('.react-flow__handle.source')
      .dragTo(node('delay_1').locator('.react-flow__handle.target'));
    t.equal(
      await panel.getByLabel('Next step', { exact: true }).inputValue(),
      'delay_1',
      'the dragged connection is the next step',
    );

    await panel.getByLabel('Edit step', { exact: true }).selectOption('delay_1');
    await page.getByRole('button', { name: '+ Condition' }).click();
    await node('condition_1').waitFor();
    await panel.getByLabel('Contact field', { exact: true }).fill('first_name');
    await panel.getByLabel('Operator', { exact: true }).selectOption('eq');
    await panel.getByLabel('Value', { exact: true }).fill('Ada');
    // The one rule becomes a group of two (the rule kept as its first), filled from the keyboard.
    await panel.getByLabel('The contact must match').selectOption('and');
    t.equal(await panel.getByLabel('Rule 1: value').inputValue(), 'Ada', 'the rule typed first is kept in the group');
    await panel.getByRole('button', { name: 'Add rule' }).press('Enter');
    await panel.getByLabel('Rule 2: contact field').fill('email');
    await panel.getByLabel('Rule 2: operator').selectOption('contains');
    await panel.getByLabel('Rule 2: value').fill('@');
    await shot(page, 'automation-condition-group');
    await page.getByRole('button', { name: '+ Send email' }).click();
    await node('send_email_1').waitFor();
    t.equal(await page.locator('.react-flow__edge').count(), 3, 'trigger → delay → condition → send email');
    await panel.getByLabel('Edit step', { exact: true }).selectOption('condition_1');
    t.equal(
      await panel.getByLabel('If met, go to', { exact: true }).inputValue(),
      'send_email_1',
      'added on the met branch',
    );
    t.match(await page.locator('.react-flow__edge-text').allTextContents(), ['next', 'next', 'met'].map(String));

    // No template on the send-email step: the API's validation names that step.
    await page.getByRole('button', { name: 'Create automation' }).click();
    const error = node('send_email_1').locator('.flow-step-error');
    await error.waitFor(WAIT);
    t.match(await error.textContent(), /template/, 'the error is drawn on the step it belongs to');
    t.equal(await node('delay_1').locator('.flow-step-error').count(), 0, 'the other steps are fine');
    const listed = page.getByRole('list', { name: 'Validation errors' });
    t.match(await listed.textContent(), /send_email_1: template must be/);
    t.match(page.url(), /\/automations\/new$/, 'nothing was created');
    await shot(page, 'automation-editor-validation-error');
    await assertAccessible(t, page, 'automation editor with a validation error');

    // The error's entry in the list opens the step; choose the template and save.
    await listed.getByRole('button', { name: 'send_email_1' }).click();
    await panel.getByLabel('Template', { exact: true }).selectOption({ label: 'Welcome mail' });
    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.waitForURL(/\/dashboard\/automations\/[0-9a-f-]{36}$/, WAIT);
    automationId = page.url().split('/').at(-1)!;
    await page.getByRole('heading', { level: 1, name: 'Welcome flow' }).waitFor();
    const saved = await api(`/automations/${automationId}`);
    t.same(
      saved.body.steps.map((s: { key: string; type: string }) => `${s.key}:${s.type}`),
      ['trigger:trigger', 'delay_1:delay', 'condition_1:condition', 'send_email_1:send_email'],
    );
    t.same(saved.body.steps[2].config, {
      type: 'and',
      rules: [
        { type: 'rule', field: 'first_name', operator: 'eq', value: 'Ada' },
        { type: 'rule', field: 'email', operator: 'contains', value: '@' },
      ],
    });
    t.same(saved.body.connections.at(-1), { from: 'condition_1', to: 'send_email_1', type: 'condition_met' });
    t.equal(saved.body.status, 'disabled');
    await node('send_email_1').waitFor();
    await shot(page, 'automation-editor');
    await assertAccessible(t, page, 'automation editor');
  });

  t.test('start it, send the event, follow the run to completed on its page', async (t) => {
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByRole('button', { name: 'Stop' }).waitFor(WAIT);
    t.equal((await api(`/automations/${automationId}`)).body.status, 'enabled');

    const sent = await api('/events/send', {
      method: 'POST',
      body: { event: 'user.signed_up', contact_id: contact.body.id, payload: {} },
    });
    t.equal(sent.status, 202);
    await tick();

    await page.getByRole('tab', { name: 'Runs' }).click();
    const runLink = page.getByRole('table', { name: 'Runs' }).getByRole('link');
    await runLink.first().waitFor(WAIT);
    t.equal(await runLink.count(), 1);
    await page.getByLabel('Run status').selectOption('completed');
    await page.getByText('No completed runs').waitFor(WAIT);
    await page.getByLabel('Run status').selectOption('running');
    await runLink.first().waitFor(WAIT);
    await shot(page, 'automation-runs');
    await assertAccessible(t, page, 'automation runs');
    await runLink.first().click();
    await page.getByRole('heading', { level: 1, name: 'Automation run' }).waitFor();
    await node('delay_1').locator('.flow-step-run-waiting').waitFor(WAIT);
    t.equal(await node('send_email_1').locator('.flow-step-run').textContent(), 'Run: pending');

    // An hour later (the clock moved, not waited for), the scheduler finishes the run.
    clock.advanceTo(Date.now() + 2 * 3_600_000);
    await tick();
    const steps = page.getByRole('table', { name: 'Steps of the run, in graph order' });
    await page.locator('.page-header .badge', { hasText: 'completed' }).waitFor(WAIT);
    for (const key of ['trigger', 'delay_1', 'condition_1', 'send_email_1'])
      await node(key).locator('.flow-step-run-completed').waitFor(WAIT);
    t.equal(await page.locator('.flow-edge-walked').count(), 3, 'the path is lit edge by edge');
    t.match(await steps.textContent(), /send_email_1Send emailcompleted/);
    await steps.getByRole('link', { name: 'the email' }).waitFor();
    await shot(page, 'automation-run');
    await assertAccessible(t, page, 'automation run');
  });

  t.test('versions: a saved graph is a new version; the list shows the active one', async (t) => {
    await page.goto(`/dashboard/automations/${automationId}`);
    await node('delay_1').waitFor(WAIT);
    await panel.getByLabel('Edit step', { exact: true }).selectOption('delay_1');
    await panel.getByLabel('Wait for', { exact: true }).fill('2 hours');
    await page.getByRole('button', { name: 'Save new version' }).click();
    await page.getByText('Saved: a new version is active').waitFor(WAIT);
    await page.getByRole('tab', { name: 'Versions' }).click();
    const table = page.getByRole('table', { name: 'Versions' });
    await table.getByText('v2').waitFor(WAIT);
    const rows = await table.locator('tbody tr').allTextContents();
    t.equal(rows.length, 2);
    t.match(rows[0], /v2\s*active/);
    t.match(rows[1], /v1.*1 completed/);
    await shot(page, 'automation-versions');
    await assertAccessible(t, page, 'automation versions');

    await page.getByRole('link', { name: 'Automations' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Automations' }).waitFor();
    const list = page.getByRole('table', { name: 'Automations' });
    await list.getByText('v2 · 0 running, 1 completed').waitFor(WAIT);
    t.match(await list.textContent(), /Welcome flow\s*enabled/);
    await shot(page, 'automations-list');
    await assertAccessible(t, page, 'automations list');
    t.same(d.errors, [], 'no script error on any page');
  });
}

async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate('window.scrollTo(0, 0)');
  await screenshot(page, name);
}
