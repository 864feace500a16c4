import t from 'tap';
import type { Page } from 'playwright-core';
import { v7 as uuidv7 } from 'uuid';
import { InboxThreadRepository } from '../../core/inboxes/inbox-thread.repository.js';
import { browserSkipReason } from '../helpers/browser.js';
import { assertAccessible, openDashboard, screenshot, signInByCookie } from '../helpers/dashboard.js';
import { customerWrites, startInboxApp } from '../helpers/inbox-fixture.js';

/**
 * The Inboxes page (issue 38, item 7) in a real browser against a real appliance: a customer's
 * message arrives in the shared inbox; a team owner opens it, replies (the reply shows in the
 * thread), creates a label and puts it on the thread, moves it to the archive, assigns it, and
 * saves the agent's settings. Every change is checked through the API as well.
 */
const skipped = browserSkipReason();

if (skipped) {
  t.plan(0, skipped);
} else {
  const fx = await startInboxApp();
  t.teardown(() => fx.app.close());
  const { app, resend, address, inboxId } = fx;

  const openTab = async (page: Page, name: string) => {
    await page.getByRole('tab', { name }).click();
    await page.getByRole('tab', { name, selected: true }).waitFor();
  };

  t.test('a customer writes; the team answers, labels, archives, assigns and sets the agent up', async (t) => {
    await customerWrites(app, {
      to: address,
      subject: 'Where is my order?',
      text: 'Hello, my order 1234 has not arrived.',
    });
    // What the agent did, as it records it (the agent itself is tested in test/api/inboxes).
    const [first] = (await resend.inboxes.threads.list({ inboxId })).data!.data;
    await new InboxThreadRepository(app.runtime.db.knex).recordAction(app.runtime.db.knex, fx.team.teamId, inboxId, {
      id: uuidv7(),
      threadId: first!.id,
      action: 'mark_as_spam',
      source: 'agent',
      reason: 'Looks like a real customer: not spam',
      detail: { outcome: 'skipped' },
      createdAt: new Date(),
    });
    const d = await openDashboard(app);
    t.teardown(() => d.close());
    const { page } = d;
    const me = await signInByCookie(app, d.context, fx.team.teamId, { role: 'owner' });

    // The navigation entry, then the list of inboxes.
    await page.goto('/dashboard/emails');
    await page.getByRole('link', { name: 'Inboxes', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Inboxes' }).waitFor();
    const row = page.getByRole('row', { name: new RegExp(address) });
    await row.waitFor();
    t.match(await row.textContent(), /Support.*Acme Support.*1/, 'the inbox with its name, sender name and unread');
    await screenshot(page, 'inboxes-list');
    await assertAccessible(t, page, 'inboxes list');

    // The inbox: its folders and the unread thread in bold.
    await row.getByRole('link', { name: 'Support' }).click();
    await page.getByRole('heading', { level: 1, name: 'Support' }).waitFor();
    const threadLink = page.getByRole('link', { name: 'Where is my order?' });
    await threadLink.waitFor();
    const folders = page.getByRole('navigation', { name: 'Folders' });
    await folders.getByRole('link', { name: /Inbox\s*1 unread/ }).waitFor();
    t.equal(await page.locator('.thread-unread', { hasText: 'Where is my order?' }).count(), 1, 'unread is bold');
    t.match(
      await page.getByRole('row', { name: /Where is my order/ }).textContent(),
      /casey@customer\.test.*Unassigned/,
      'from and assignee shown',
    );
    await screenshot(page, 'inbox-threads');
    await assertAccessible(t, page, 'inbox threads');

    // Search narrows the list.
    await page.getByLabel('Search subject or addresses').fill('nothing-like-this');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No thread matches').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await threadLink.waitFor();

    // The thread: the customer's email, read on opening.
    await threadLink.click();
    await page.getByRole('heading', { level: 1, name: 'Where is my order?' }).waitFor();
    const messages = page.getByRole('list', { name: 'Emails in this thread' });
    await messages.getByText('Hello, my order 1234 has not arrived.').waitFor();
    await page.getByRole('button', { name: 'Mark unread' }).waitFor();
    // The list's thread (assignee_email is the appliance's addition to the SDK's InboxThread).
    const summary = async () => {
      const threads = await resend.inboxes.threads.list({ inboxId });
      return threads.data!.data[0]! as (typeof threads.data & object)['data'][number] & {
        assignee_email: string | null;
      };
    };
    t.equal((await summary()).read, true, 'opening the thread read it');

    // Reply: the editor, a send, and the reply in the thread.
    await messages.getByRole('button', { name: 'Reply to email 1' }).click();
    await page.getByLabel('Your reply').fill('It ships tomorrow, sorry for the wait.');
    await screenshot(page, 'inbox-reply-editor');
    await assertAccessible(t, page, 'reply editor');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.getByText('Reply sent').waitFor();
    await messages.getByText('It ships tomorrow, sorry for the wait.').waitFor();
    const items = messages.locator('> li');
    t.equal(await items.count(), 2, 'two emails in the thread');
    t.match(await items.nth(1).textContent(), /Sent.*support@/, 'the reply is marked sent, from the inbox');
    t.equal((await summary()).email_count, 2);

    // A reply kept as a draft shows under Drafts.
    await messages.getByRole('button', { name: 'Reply to email 1' }).click();
    await page.getByLabel('Your reply').fill('A second thought, kept for later.');
    await page.getByRole('button', { name: 'Save as draft' }).click();
    await page.getByText('Reply saved as a draft').waitFor();

    // A label, created on the Labels tab with its colour, then put on the thread.
    await page.getByRole('link', { name: /Support · Inbox/ }).click();
    await openTab(page, 'Drafts (1)');
    await page.getByRole('row', { name: /A second thought/ }).waitFor();
    await screenshot(page, 'inbox-drafts');
    await assertAccessible(t, page, 'inbox drafts');
    await openTab(page, 'Labels');
    await page.getByText('No labels yet').waitFor();
    const newLabel = page.getByRole('form', { name: 'Create a label' });
    await newLabel.getByLabel('Name').fill('Billing');
    await newLabel.getByLabel('Colour').fill('#e93d82');
    await newLabel.getByRole('button', { name: 'Create label' }).click();
    await page.getByText('Label Billing created').waitFor();
    await page.getByRole('row', { name: /Billing.*#E93D82/ }).waitFor();
    await screenshot(page, 'inbox-labels');
    await assertAccessible(t, page, 'inbox labels');
    await openTab(page, 'Threads');
    await page.getByRole('link', { name: 'Where is my order?' }).click();
    await page.getByRole('heading', { level: 1, name: 'Where is my order?' }).waitFor();
    await page.getByLabel('Label to add').selectOption({ label: 'Billing' });
    await page.getByRole('button', { name: 'Add label' }).click();
    await page.getByText('Label added').waitFor();
    await page.getByRole('button', { name: 'Remove the label Billing' }).waitFor();
    t.same(
      (await summary()).labels.map((label) => [label.name, label.color]),
      [['Billing', '#E93D82']],
      'the thread has the label',
    );

    // Assigned to the signed-in member.
    await page.getByLabel('Assignee').selectOption(me);
    await page.getByRole('button', { name: 'Assign', exact: true }).click();
    await page.getByText(`Assigned to ${me}`).waitFor();
    t.equal((await summary()).assignee_email, me, 'assigned');

    // Moved to the archive.
    await page.getByLabel('Folder').selectOption('archive');
    await page.getByRole('button', { name: 'Move', exact: true }).click();
    await page.getByText('Moved to Archive').waitFor();
    await page.getByText('in Archive').waitFor();
    const archived = await resend.inboxes.threads.list({ inboxId, folders: ['archive'] });
    t.equal(archived.data!.data.length, 1, 'the thread is in the archive');
    t.equal(archived.data!.data[0]!.folder, 'archive');
    const recorded = page.getByRole('region', { name: 'Agent actions' });
    await recorded.getByText('Reason: Looks like a real customer: not spam').waitFor();
    t.match(await recorded.textContent(), /mark as spam\s*by agent\s*skipped/, 'the agent’s action with its outcome');
    // The confirmations fade after a few seconds: the screenshot shows the page under them.
    for (let waited = 0; (await page.locator('.toast').count()) > 0 && waited < 15_000; waited += 250)
      await page.waitForTimeout(250);
    await screenshot(page, 'inbox-thread');
    await assertAccessible(t, page, 'inbox thread');

    // The archive folder lists it with its label and assignee; the inbox folder is empty.
    await page.getByRole('link', { name: /Support · Archive/ }).click();
    const archivedRow = page.getByRole('row', { name: /Where is my order/ });
    await archivedRow.waitFor();
    t.match(await archivedRow.textContent(), new RegExp(`Billing.*${me.replace(/[.]/g, '\\.')}`));
    await page.getByRole('navigation', { name: 'Folders' }).getByRole('link', { name: 'Inbox' }).click();
    await page.getByText('Nothing in Inbox').waitFor();

    // The agent's settings on the Settings tab.
    await openTab(page, 'Settings');
    const agent = page.getByRole('form', { name: 'Agent settings' });
    await agent.getByLabel('Instructions').fill('Label billing questions as Billing.');
    await agent.getByLabel('Tone of drafted replies').selectOption('concise_casual');
    await agent.getByLabel('Add labels').check();
    await agent.getByLabel('Assign to a team member').check();
    await agent.getByRole('button', { name: 'Save agent settings' }).click();
    await page.getByText('Agent settings saved').waitFor();
    const settings = await resend.inboxes.agent.get({ inboxId });
    t.match(
      settings.data,
      {
        instructions: 'Label billing questions as Billing.',
        tone: 'concise_casual',
        actions: ['add_labels', 'assign_thread'],
      },
      'the agent settings are saved',
    );
    await screenshot(page, 'inbox-settings');
    await assertAccessible(t, page, 'inbox settings');
    t.same(d.errors, [], 'no script errors');
  });

  t.test('an API refusal is shown in words on its field', async (t) => {
    const d = await openDashboard(app);
    t.teardown(() => d.close());
    const { page } = d;
    await signInByCookie(app, d.context, fx.team.teamId);
    await page.goto('/dashboard/inboxes');
    const form = page.getByRole('form', { name: 'Create an inbox' });
    // An address on a domain the team does not receive at.
    await form.getByLabel('Address').fill('help@not-ours.test');
    await form.getByRole('button', { name: 'Create inbox' }).click();
    const alert = page.getByRole('alert').first();
    await alert.waitFor();
    t.ok((await alert.innerText()).length > 10, `the API's message is shown: ${await alert.innerText()}`);
    t.notMatch(await alert.innerText(), /^\d{3}$|application_error/, 'words, not a status');
    await screenshot(page, 'inboxes-create-refused');
    t.same(d.errors, [], 'no script errors');
  });
}
