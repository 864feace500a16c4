import type { BrowserContext, Page } from 'playwright-core';
import t from 'tap';
import { startDeliveryWorker } from '../../mta/queue/delivery-worker.js';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot, signInByCookie, type Dashboard } from '../helpers/dashboard.js';
import { request } from '../helpers/http.js';
import { startMtaFixture, type MtaFixture } from '../helpers/mta-fixture.js';
import { createOperator } from '../helpers/operator.js';

/**
 * The operator console in a real browser against a real appliance whose MTA delivers to a
 * loopback SMTP sink. As an operator: mail sent through the API piles up on the Queue page, is
 * held for its destination while a worker runs, released and delivered at the sink; a purge asks
 * first, naming how many; a delivered message's transcript is found; a team is suspended (its key
 * refused by the API) and resumed. Every console page gets a screenshot and axe-core. A team user
 * who opens the console sees the API's refusal and no operator navigation; an operator without
 * MFA is sent to enrol.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  // No worker at first: the test sends, holds, then starts one, so nothing races the hold.
  const fx: MtaFixture = await startMtaFixture({ sinkHosts: ['127.0.0.10'], noWorker: true });
  const [sink] = fx.sinks;
  fx.dns.add(
    { type: 'MX', name: 'dest.test', exchange: 'mx.dest.test', priority: 10 },
    { type: 'A', name: 'mx.dest.test', address: '127.0.0.10' },
  );
  const operator = await createOperator(fx.app, { name: 'Olga Operator' });
  const d: Dashboard & { errors: string[] } = await openDashboard(fx.app);
  await useCookie(d.context, fx.app.url, operator.cookie);
  t.teardown(async () => {
    await d.close();
    await fx.close();
  });
  const { page } = d;
  const WAIT = { timeout: 30_000 };
  const teamApi = (path: string, options: { method?: string; body?: unknown } = {}) =>
    request(fx.app.url, path, { ...options, token: fx.token });
  const send = async (to: string) => {
    const res = await teamApi('/emails', {
      method: 'POST',
      body: { from: 'Acme <hello@sender.test>', to, subject: 'Queued hello', text: 'Hello there' },
    });
    if (res.status !== 200) throw new Error(`send refused: ${res.text}`);
    return res.body.id as string;
  };
  const operatorNav = () => page.getByRole('navigation', { name: 'Operator console' });
  /** The row of `label` in a card's table, once its text matches `text`. */
  const rowOf = (card: string, label: string, text: RegExp) =>
    page.getByRole('region', { name: card }).getByRole('row').filter({ hasText: label }).filter({ hasText: text });

  t.test('queue: mail piles up, is held with a worker running, released and delivered', async (t) => {
    await page.goto('/dashboard/admin/queue');
    await page.getByRole('heading', { level: 1, name: 'Queue' }).waitFor();
    for (const name of ['Queue', 'IP pools', 'Deliverability', 'Teams', 'System'])
      t.ok(await operatorNav().getByRole('link', { name, exact: true }).isVisible(), `the operator nav has ${name}`);
    t.equal(await page.getByRole('link', { name: 'Emails', exact: true }).count(), 0, 'and no team entry');
    t.equal(
      await operatorNav().getByRole('link', { name: 'Queue' }).getAttribute('aria-current'),
      'page',
      'Queue is marked as the current page',
    );

    // Sent through the API while the page is open: the page (polling) shows them arrive.
    const ids = [await send('a@dest.test'), await send('b@dest.test'), await send('c@dest.test')];
    await send('x@purge.test');
    await send('y@purge.test');
    // The MTA's hand-over step (accepted emails -> queued deliveries), run here without a worker
    // so nothing is taken for sending before the hold.
    t.equal(await fx.app.runtime.services.deliveries.handOver(), 5, 'five emails handed over to the queue');
    await rowOf('By destination domain', 'dest.test', /3 queued/).waitFor(WAIT);
    await rowOf('By destination domain', 'purge.test', /2 queued/).waitFor(WAIT);
    await shot(page, 'console-queue-accumulated');
    await assertAccessible(t, page, 'queue page with waiting mail');

    // Hold the destination.
    const form = page.getByRole('form', { name: 'Queue action' });
    await form.getByLabel('Destination domain').fill('dest.test');
    await form.getByRole('button', { name: 'Hold', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Held: 3 messages' }).first().waitFor(WAIT);
    await rowOf('By destination domain', 'dest.test', /3 held/).waitFor(WAIT);

    // Purge the other destination: the dialog names how many first.
    await form.getByLabel('Destination domain').fill('purge.test');
    await form.getByRole('button', { name: 'Purge…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Purge 2 messages?' });
    await dialog.waitFor(WAIT);
    t.match(await dialog.textContent(), /2 waiting messages\s+to purge\.test will be removed/, 'the dialog says which');
    await shot(page, 'console-queue-purge-dialog');
    await assertAccessible(t, page, 'purge confirmation');
    await dialog.getByRole('button', { name: 'Purge 2 messages' }).click();
    await page.getByRole('status').filter({ hasText: 'Purged: 2 messages' }).first().waitFor(WAIT);
    await rowOf('By destination domain', 'purge.test', /./).waitFor({ state: 'detached', ...WAIT });

    // A worker now runs: the held mail stays put (checked after it has had time to poll).
    const worker = startDeliveryWorker(fx.app.runtime);
    fx.workers.push(worker); // stopped by fx.close()
    await new Promise((resolve) => setTimeout(resolve, 1500));
    t.equal(sink!.messages.length, 0, 'nothing was delivered while held');
    await rowOf('By destination domain', 'dest.test', /3 held/).waitFor(WAIT);
    await shot(page, 'console-queue-held');

    await form.getByLabel('Destination domain').fill('dest.test');
    await form.getByRole('button', { name: 'Release' }).click();
    await page.getByRole('status').filter({ hasText: 'Released: 3 messages' }).first().waitFor(WAIT);
    await fx.waitFor(async () => sink!.messages.length >= 3, 'three messages at the sink');
    t.same(
      sink!.messages.flatMap((m) => m.to).sort(),
      ['a@dest.test', 'b@dest.test', 'c@dest.test'],
      'the released mail reached the sink (and nothing purged did)',
    );
    await rowOf('Depth', 'delivered', /^delivered\s*3$/).waitFor(WAIT);
    await rowOf('By destination domain', 'dest.test', /./).waitFor({ state: 'detached', ...WAIT });
    for (const id of ids) {
      const email = await fx.waitFor(async () => {
        const res = await teamApi(`/emails/${id}`);
        return res.body.last_event === 'delivered' && res.body;
      }, `email ${id} delivered`);
      t.equal(email.last_event, 'delivered', `the API agrees: ${id} was delivered`);
    }

    // A delivered message, found by its recipient, with its attempt and SMTP transcript.
    await page.getByLabel('Email ID or recipient address').fill('a@dest.test');
    await page.getByRole('search').getByRole('button', { name: 'Find' }).click();
    await page.getByRole('button', { name: 'Attempts and transcripts of the email to a@dest.test' }).click();
    const attempts = page.getByRole('region', { name: 'Message attempts and transcripts' });
    await attempts.getByText('SMTP transcript').first().click();
    const transcript = attempts.getByLabel('SMTP transcript').first();
    await transcript.waitFor(WAIT);
    t.match(await transcript.textContent(), /RCPT TO:<a@dest\.test>/i, 'the transcript shows the SMTP dialogue');
    await shot(page, 'console-queue-transcript');
    await assertAccessible(t, page, 'queue page with a transcript');
  });

  t.test('a standing hold on a destination: new mail accumulates held, released and delivered', async (t) => {
    // The worker from the test above is running: without the hold this mail would go at once.
    fx.dns.add(
      { type: 'MX', name: 'later.test', exchange: 'mx.later.test', priority: 10 },
      { type: 'A', name: 'mx.later.test', address: '127.0.0.10' },
    );
    const toLater = () => sink!.messages.filter((m) => m.to.some((to) => to.endsWith('@later.test')));
    await page.goto('/dashboard/admin/queue');
    const holds = page.getByRole('region', { name: 'Destination holds' });
    await holds.getByText('No destination is on hold').waitFor(WAIT);
    const form = page.getByRole('form', { name: 'Hold a destination' });
    await form.getByLabel('Domain to hold').fill('later.test');
    await form.getByLabel('Reason (optional)').fill('Their postmaster asked us to pause');
    await form.getByRole('button', { name: 'Hold domain' }).click();
    await holds
      .getByRole('row')
      .filter({ hasText: 'later.test' })
      .filter({ hasText: 'Their postmaster' })
      .waitFor(WAIT);

    const ids = [await send('a@later.test'), await send('b@later.test'), await send('c@later.test')];
    await rowOf('By destination domain', 'later.test', /3 held/).waitFor(WAIT);
    t.equal(toLater().length, 0, 'nothing reached the held destination');
    await shot(page, 'console-queue-destination-held');
    await assertAccessible(t, page, 'queue page with a destination hold');

    await holds.getByRole('button', { name: 'Release later.test' }).click();
    await holds.getByText('No destination is on hold').waitFor(WAIT);
    await fx.waitFor(async () => toLater().length >= 3, 'three messages at the sink after the release');
    for (const id of ids) await fx.waitForEvents(id, ['email.delivered']);
    t.equal(toLater().length, 3, 'the held mail was delivered once released');
    await rowOf('By destination domain', 'later.test', /./).waitFor({ state: 'detached', ...WAIT });
  });

  t.test(
    'teams: marketing pause, suspend a team (its key refused) and resume, plan and tier, create a team',
    async (t) => {
      await page.goto('/dashboard/admin/teams');
      await page.getByRole('heading', { level: 1, name: 'Teams' }).waitFor();
      const row = page.getByRole('table', { name: 'Teams' }).getByRole('row').filter({ hasText: 'MTA' });
      await row.waitFor(WAIT);
      t.match(await row.textContent(), /active/, 'the team is active');
      await shot(page, 'console-teams');
      await assertAccessible(t, page, 'teams page');

      // The platform's marketing switch: paused, then resumed (the API agrees each time).
      const marketing = page.getByRole('region', { name: 'Marketing' });
      const marketingState = async () =>
        (await request(fx.app.url, '/admin/marketing', { headers: { cookie: operator.cookie } })).body.marketing;
      await marketing.getByRole('button', { name: 'Pause marketing' }).click();
      await page
        .getByRole('dialog', { name: 'Pause marketing?' })
        .getByRole('button', { name: 'Pause marketing' })
        .click();
      await marketing.getByText('paused', { exact: true }).waitFor(WAIT);
      t.equal(await marketingState(), 'paused', 'marketing is paused');
      await marketing.getByRole('button', { name: 'Resume marketing' }).click();
      await page
        .getByRole('dialog', { name: 'Resume marketing?' })
        .getByRole('button', { name: 'Resume marketing' })
        .click();
      await marketing.getByText('enabled', { exact: true }).waitFor(WAIT);
      t.equal(await marketingState(), 'enabled', 'and enabled again');

      await row.getByRole('button', { name: 'Suspend MTA' }).click();
      const dialog = page.getByRole('dialog', { name: 'Suspend MTA?' });
      t.match(await dialog.textContent(), /suspended_api_key/, 'the dialog says what suspending does');
      await dialog.getByRole('button', { name: 'Suspend team' }).click();
      await row.filter({ hasText: 'suspended' }).waitFor(WAIT);
      const refused = await teamApi('/domains');
      t.equal(refused.status, 403, 'the suspended team’s key is refused');
      t.equal(refused.body.name, 'suspended_api_key', 'as suspended');

      await row.getByRole('button', { name: 'Resume MTA' }).click();
      await page.getByRole('dialog', { name: 'Resume MTA?' }).getByRole('button', { name: 'Resume team' }).click();
      await row.filter({ hasText: 'active' }).waitFor(WAIT);
      t.equal((await teamApi('/domains')).status, 200, 'after resuming, the key works again');

      // The team's own page: plan, tier and usage.
      await row.getByRole('link', { name: 'MTA' }).click();
      await page.getByRole('heading', { level: 1, name: 'MTA' }).waitFor();
      await page.getByRole('region', { name: 'Usage' }).getByText('Emails this month').waitFor(WAIT);
      const usage = await teamApi('/usage');
      t.match(
        await page.getByRole('region', { name: 'Usage' }).textContent(),
        new RegExp(`Emails this month\\s*${usage.body.emails.monthly.used} of`),
        'the usage shown is the team’s own count',
      );
      await shot(page, 'console-team-detail');
      await assertAccessible(t, page, 'a team’s page');

      // Plan and tier, saved through the admin API (the team's own view agrees).
      const plan = page.getByRole('form', { name: 'Plan and tier' });
      await plan.getByLabel('Plan').selectOption('pro');
      await plan.getByLabel('Tier').selectOption('3');
      await plan.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Plan and tier saved').waitFor(WAIT);
      const own = await teamApi('/team');
      t.equal(own.body.plan.code, 'pro', 'the team is on the plan chosen');
      t.equal(
        await fx.app.runtime.services.teams.get(fx.teamId).then((team) => team.sendingTier),
        3,
        'at the tier chosen',
      );

      // A new team, with its first key shown once: the key works.
      await page.getByRole('link', { name: '← Teams' }).click();
      await page.getByRole('button', { name: 'Create team' }).click();
      const create = page.getByRole('form', { name: 'Create a team' });
      await create.getByLabel('Name').fill('Newcomer');
      await create.getByLabel('Plan').selectOption('free');
      await create.getByRole('button', { name: 'Create team' }).click();
      const token = page.getByRole('dialog', { name: 'Newcomer created' }).getByLabel("The new team's API key");
      await token.waitFor(WAIT);
      await shot(page, 'console-team-created');
      await assertAccessible(t, page, 'team created, key shown');
      const key = await token.inputValue();
      const asNew = await request(fx.app.url, '/team', { token: key });
      t.equal(asNew.status, 200, 'the new team’s key works');
      t.equal(asNew.body.name, 'Newcomer', 'and belongs to the new team');
      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByRole('table', { name: 'Teams' }).getByRole('link', { name: 'Newcomer' }).waitFor(WAIT);
    },
  );

  t.test('IP pools: check PTR, disable an address and enable it again', async (t) => {
    await page.goto('/dashboard/admin/ip-pools');
    await page.getByRole('heading', { level: 1, name: 'IP pools' }).waitFor();
    const row = page
      .getByRole('table', { name: 'Egress addresses of us-east-1' })
      .getByRole('row')
      .filter({ hasText: '127.0.0.2' });
    await row.getByText('in use').waitFor(WAIT);
    await page.getByRole('button', { name: 'Check PTR records' }).click();
    await row.getByText('Not checked').waitFor({ state: 'detached', ...WAIT });
    t.match(await row.textContent(), /ok|warn|fail/, 'the PTR check’s result is shown');

    await row.getByRole('button', { name: 'Disable 127.0.0.2' }).click();
    const dialog = page.getByRole('dialog', { name: 'Disable 127.0.0.2?' });
    await dialog.getByLabel('Reason (kept with the address)').fill('listed at a block list');
    await dialog.getByRole('button', { name: 'Disable address' }).click();
    await row.getByText('listed at a block list').waitFor(WAIT);
    const pools = await request(fx.app.url, '/admin/ip-pools', { headers: { cookie: operator.cookie } });
    const address = pools.body.regions
      .flatMap((region: { addresses: unknown[] }) => region.addresses)
      .find((a: { address: string }) => a.address === '127.0.0.2');
    t.equal(address.disabled_by_operator.reason, 'listed at a block list', 'the API has it disabled, with the reason');
    await shot(page, 'console-ip-pools-disabled');
    await assertAccessible(t, page, 'IP pools with a disabled address');

    await row.getByRole('button', { name: 'Enable 127.0.0.2' }).click();
    await row.getByText('in use').waitFor(WAIT);
    t.pass('enabled again');
  });

  t.test('the other console pages', async (t) => {
    await page.goto('/dashboard/admin/queue');
    for (const [link, heading, name, ready] of [
      ['IP pools', 'IP pools', 'console-ip-pools', /127\.0\.0\.2/],
      ['Deliverability', 'Deliverability', 'console-deliverability', /Block lists/],
      ['System', 'System', 'console-system', /Processes/],
    ] as const) {
      await operatorNav().getByRole('link', { name: link }).click();
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await page.getByRole('main').getByText(ready).first().waitFor(WAIT);
      t.equal(await page.getByRole('main').getByRole('alert').count(), 0, `${heading}: no error shown`);
      await shot(page, name);
      await assertAccessible(t, page, `${heading} page`);
    }
    // The System page lists what operators did through the admin API (its own request log).
    const requests = page.getByRole('region', { name: 'Operator requests' });
    await requests.getByRole('row').filter({ hasText: 'GET /admin/system' }).first().waitFor(WAIT);
    t.pass('the page’s own calls are in the operator requests');
  });

  t.test('a team user opening the console sees the refusal and no operator navigation', async (t) => {
    const other = await openDashboard(fx.app);
    t.teardown(() => other.close());
    await signInByCookie(fx.app, other.context, fx.teamId);
    await other.page.goto('/dashboard/admin/queue');
    const alert = other.page.getByRole('main').getByRole('alert');
    await alert.waitFor(WAIT);
    t.match(await alert.textContent(), /permission/i, 'the API’s 403 is shown as the page’s error');
    t.equal(await other.page.getByRole('navigation', { name: 'Operator console' }).count(), 0, 'no operator nav');
    t.equal(
      await other.page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Queue' }).count(),
      0,
      'no operator entry in the team navigation',
    );
    t.ok(
      await other.page.getByRole('link', { name: 'Emails', exact: true }).isVisible(),
      'the team navigation is there',
    );
    await shot(other.page, 'console-team-user-refused');
    await assertAccessible(t, other.page, 'console refused to a team user');
  });

  t.test('an operator without MFA is sent to enrol, with the reason', async (t) => {
    const fresh = await createOperator(fx.app, { mfa: false });
    const other = await openDashboard(fx.app);
    t.teardown(() => other.close());
    await useCookie(other.context, fx.app.url, fresh.cookie);
    await other.page.goto('/dashboard/admin/queue');
    await other.page.waitForURL(/\/dashboard\/account\?operator_mfa=required$/, WAIT);
    await other.page.getByText(/Operator accounts must use two-factor authentication/).waitFor(WAIT);
    const mfa = other.page.getByRole('region', { name: 'Two-factor authentication' });
    await mfa.waitFor(WAIT);
    t.ok(
      await mfa.getByRole('button', { name: 'Set up two-factor authentication' }).isVisible(),
      'on the account page, with the MFA set-up at hand',
    );
    await shot(other.page, 'console-operator-mfa-required');
    await assertAccessible(t, other.page, 'operator sent to MFA enrolment');
  });

  t.test('an operator signs in through the pages (password, then the MFA code) and lands in the console', async (t) => {
    const other = await openDashboard(fx.app);
    t.teardown(() => other.close());
    await other.page.goto('/dashboard/emails');
    await other.page.waitForURL(/\/dashboard\/login/, WAIT);
    const form = other.page.getByRole('form', { name: 'Sign in' });
    await form.getByLabel('E-mail').fill(operator.email);
    await form.getByLabel('Password').fill(operator.password);
    await form.getByRole('button', { name: 'Sign in' }).click();
    // The next 30-second step: the helper's confirmation used the current one, which works once.
    const code = other.page.getByRole('form', { name: 'Two-factor code' });
    await code.getByLabel('Authentication code').fill(operator.code(new Date(Date.now() + 30_000)));
    await code.getByRole('button', { name: 'Verify' }).click();
    // Asked for a team page (the Emails list): an operator is taken to the console instead.
    await other.page.waitForURL(/\/dashboard\/admin\/queue$/, WAIT);
    await other.page.getByRole('heading', { level: 1, name: 'Queue' }).waitFor(WAIT);
    t.equal(await other.page.getByRole('main').getByRole('alert').count(), 0, 'no error shown on arrival');
    t.ok(
      await other.page.getByRole('navigation', { name: 'Operator console' }).isVisible(),
      'the operator navigation is shown',
    );
  });

  t.test('no script error on any console page', async (t) => {
    t.same(d.errors, [], 'the browser logged no error');
  });
}

/** An operator's session (createOperator's `mailroom_session=...`) put in the browser. */
async function useCookie(context: BrowserContext, url: string, cookie: string): Promise<void> {
  const value = cookie.split('=')[1]!;
  await context.addCookies([{ name: 'mailroom_session', value, url, httpOnly: true, sameSite: 'Lax' }]);
}

async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate('window.scrollTo(0, 0)');
  await screenshot(page, name);
}
