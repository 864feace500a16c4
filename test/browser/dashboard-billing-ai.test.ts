import t from 'tap';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot, signInByCookie } from '../helpers/dashboard.js';
import { acceptEmail, deliverAndBounce, sendingTeam } from '../helpers/email-activity.js';
import { AI_TEST_KEY, AI_TEST_MODEL } from '../helpers/ai-fixture.js';
import { startBillingApp } from '../helpers/billing-app.js';
import { request } from '../helpers/http.js';
import { startOpenAiDouble } from '../helpers/openai-double.js';

/**
 * The Billing page and the AI helpers in the dashboard, against an appliance whose payment
 * provider is the Stripe double and whose model is the OpenAI-compatible double: subscribe
 * through checkout (the browser goes to the provider's page and comes back), see the
 * subscription, card and invoice, switch plans; turn AI assist on in Team settings, take a
 * suggested subject line in the template editor, and diagnose an email.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const ai = await startOpenAiDouble();
  const billing = await startBillingApp({
    config: { ai: { provider: 'openai-compatible', baseUrl: ai.baseUrl, model: AI_TEST_MODEL, timeoutMs: 5_000 } },
    env: { MAILROOM_AI_API_KEY: AI_TEST_KEY },
  });
  t.teardown(async () => {
    await billing.close();
    await ai.close();
  });
  const { app, stripe } = billing;

  t.test('subscribe through checkout, see the subscription, card and invoice, switch plans', async (t) => {
    const team = await app.createTeam('Billing page', 'free');
    const d = await openDashboard(app);
    t.teardown(() => d.close());
    const { page } = d;
    await signInByCookie(app, d.context, team.teamId);
    await page.goto('/dashboard/billing');
    await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
    const usage = page.getByRole('region', { name: 'Usage' });
    await usage.getByText('Emails this month').waitFor();
    t.match(
      await usage.innerText(),
      /Emails today\s+0 of 100 a day/,
      'the daily cap of the free plan, from GET /usage',
    );
    const plans = page.getByRole('region', { name: 'Plans' });
    await plans.getByRole('button', { name: 'Subscribe to Pro' }).waitFor();
    t.match(await plans.innerText(), /Pro\s+\$20\.00 a month/, 'the price read from Stripe');
    t.match(
      await plans.innerText(),
      /Scale\s+\$90\.00 a month\s+100,000\s+Included/,
      'which plans include single sign-on',
    );
    await assertAccessible(t, page, 'billing page without a subscription');
    await screenshot(page, 'billing-free');

    // Checkout: the browser goes to the provider's page.
    await plans.getByRole('button', { name: 'Subscribe to Pro' }).click();
    await page.waitForURL((url) => url.href.startsWith(`${stripe.url}/checkout/`));
    const sessionId = page.url().split('/').pop()!;
    const checkout = stripe.requestsTo('/v1/checkout/sessions', 'POST').at(-1)!;
    t.match(checkout.body.success_url, /\/dashboard\/billing\?checkout=success$/, 'comes back to the billing page');
    stripe.completeCheckout(sessionId, { paymentMethod: { brand: 'visa', last4: '4242' } });
    await billing.deliverAll();

    await page.goto(`${app.url}/dashboard/billing?checkout=success`);
    await page.getByText('the payment went through').waitFor();
    const subscription = page.getByRole('region', { name: 'Plan: Pro' });
    await subscription.getByText('visa ending 4242').waitFor();
    t.match(await subscription.innerText(), /Status\s+active/i, 'the subscription is active');
    const invoices = page.getByRole('region', { name: 'Invoices' });
    await invoices.getByRole('link', { name: /View/ }).first().waitFor();
    t.match(await invoices.innerText(), /\$20\.00/, 'the paid invoice');
    await assertAccessible(t, page, 'billing page with a subscription');
    await screenshot(page, 'billing-subscribed');

    // Switch to Scale: POST /billing/plan, and the page follows.
    await plans.getByRole('button', { name: 'Switch to Scale' }).click();
    await page.getByText('The plan was changed').waitFor();
    await page.getByRole('region', { name: 'Plan: Scale' }).waitFor();
    const team_ = await request(app.url, '/team', { token: team.token });
    t.equal(team_.body.plan.code, 'scale', 'the team is on Scale');
  });

  t.test('AI assist: turned on in Team settings, a suggested subject line, a diagnosis', async (t) => {
    const team = await sendingTeam(app, 'ai-dashboard');
    const d = await openDashboard(app);
    t.teardown(() => d.close());
    const { page } = d;
    await signInByCookie(app, d.context, team.teamId);

    await page.goto('/dashboard/team');
    const toggle = page.getByRole('checkbox', { name: 'Offer AI help in this team' });
    await toggle.check();
    await page.getByText('AI assist is on').waitFor();
    t.equal((await request(app.url, '/team', { token: team.token })).body.ai_assist_enabled, true, 'saved');

    const template = await request(app.url, '/templates', {
      method: 'POST',
      token: team.token,
      body: { name: 'Welcome', subject: 'Welcome aboard', html: '<p>Hello and welcome.</p>' },
    });
    t.equal(template.status, 201, 'a template to edit');
    ai.script({ kind: 'json', value: { suggestions: ['Your account is ready', 'Welcome to the team'] } });
    await page.goto(`/dashboard/templates/${template.body.id}`);
    await page.getByRole('button', { name: 'Suggest subject lines' }).click();
    const suggestions = page.getByRole('list', { name: 'Suggested subject lines' });
    await suggestions.waitFor();
    t.match(await suggestions.innerText(), /Your account is ready[\s\S]*Welcome to the team/, 'the model’s lines');
    await page.getByRole('button', { name: 'Use “Your account is ready”' }).click();
    t.equal(
      await page.getByLabel('Subject', { exact: true }).inputValue(),
      'Your account is ready',
      'taken into the field',
    );
    t.match(await page.getByText(/credits left this month/).innerText(), /One AI credit|one AI credit/i);
    await screenshot(page, 'ai-subject-lines');

    const email = await acceptEmail(app, team, ['reader@example.net', 'gone@example.net']);
    await deliverAndBounce(app, email);
    ai.script({
      kind: 'json',
      value: {
        summary: 'One recipient received it; the other address does not exist at its provider.',
        likely_causes: ['The mailbox <recipient-2> was deleted'],
        next_steps: ['Remove the address from the list'],
      },
    });
    await page.goto(`/dashboard/emails/${email.id}`);
    const diagnosis = page.getByRole('region', { name: 'Diagnosis' });
    await diagnosis.getByRole('button', { name: 'Diagnose with AI' }).click();
    await diagnosis.getByText('does not exist at its provider').waitFor();
    t.match(await diagnosis.innerText(), /Likely causes[\s\S]*Next steps/, 'causes and steps');
    t.match(
      await diagnosis.innerText(),
      /The mailbox gone@example\.net was deleted/,
      'the placeholder read as the address',
    );
    t.notMatch(JSON.stringify(ai.requests.at(-1)!.body), /gone@example\.net/, 'which the model never saw');
    await assertAccessible(t, page, 'email page with a diagnosis');
    await screenshot(page, 'ai-diagnosis');
    await diagnosis.getByRole('button', { name: 'Diagnose again' }).click();
    await diagnosis.getByText('Made earlier').waitFor();
    t.pass('asked again for the same state: the stored diagnosis, at no cost');
  });
}
