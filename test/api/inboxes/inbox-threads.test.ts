import t from 'tap';
import { sessionInTeam } from '../../helpers/accounts.js';
import { request } from '../../helpers/http.js';
import { customerWrites, startInboxApp } from '../../helpers/inbox-fixture.js';

/**
 * Threads through the SDK: folders, read state, labels (add, set, remove, and a deleted label
 * coming off), search, assignment, deletion, and the inbox.* events each change records.
 */
const fx = await startInboxApp();
t.teardown(() => fx.app.close());
const { resend, app, address, inboxId, team } = fx;

const order = await customerWrites(app, { to: address, subject: 'Order 1042 late', text: 'Where is order 1042?' });
const invoice = await customerWrites(app, {
  to: address,
  from: 'Bea Buyer <bea@shop.test>',
  subject: 'Invoice copy',
  text: 'Please send the invoice again.',
});
const threads = (await resend.inboxes.threads.list({ inboxId })).data!.data;
const orderThread = threads.find((thread) => thread.subject === 'Order 1042 late')!;
const invoiceThread = threads.find((thread) => thread.subject === 'Invoice copy')!;

async function eventsOf(type: string) {
  const rows = (await app.runtime.db
    .knex('events')
    .where({ team_id: team.teamId, type })
    .orderBy('id', 'asc')) as Array<{
    data: string | Record<string, unknown>;
  }>;
  return rows.map((row) => (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as Record<string, any>);
}

t.test('received mail is recorded as inbox.thread.created and inbox.email.received', async (t) => {
  const created = await eventsOf('inbox.thread.created');
  t.equal(created.length, 2);
  t.match(created[0], {
    source: 'system',
    inbox_id: inboxId,
    thread_id: String,
    email_id: order.receivedId,
    thread: { object: 'inbox_thread', subject: 'Order 1042 late', folder: 'inbox', read: false, labels: [] },
    email: { id: order.receivedId, direction: 'inbound', message_id: order.messageId },
  });
  t.notOk('html' in created[0]!.email, 'the event carries no bodies');
  t.equal((await eventsOf('inbox.email.received')).length, 2);
  t.equal((await eventsOf('inbox.created')).length, 1);
});

t.test('read, folders, and their events', async (t) => {
  const read = await resend.inboxes.threads.update({ inboxId, threadId: orderThread.id, read: true });
  t.equal(read.error, null);
  t.match(read.data, { object: 'inbox_thread', id: orderThread.id, read: true, folder: 'inbox' });
  const email = await resend.inboxes.threads.emails.get({
    inboxId,
    threadId: orderThread.id,
    emailId: order.receivedId,
  });
  t.equal(email.data!.read, true, 'reading a thread reads its emails');
  const unread = await resend.inboxes.threads.list({ inboxId, read: false });
  t.same(
    unread.data!.data.map((thread) => thread.id),
    [invoiceThread.id],
  );
  const moved = await resend.inboxes.threads.update({ inboxId, threadId: orderThread.id, folder: 'archive' });
  t.equal(moved.data!.folder, 'archive');
  t.same(
    (await resend.inboxes.threads.list({ inboxId, folders: ['inbox'] })).data!.data.map((thread) => thread.id),
    [invoiceThread.id],
  );
  t.same(
    (await resend.inboxes.threads.list({ inboxId, folders: ['archive', 'spam'] })).data!.data.map(
      (thread) => thread.id,
    ),
    [orderThread.id],
  );
  const folderEvents = await eventsOf('inbox.thread.folder.updated');
  t.match(folderEvents, [{ source: 'api', from: 'inbox', to: 'archive', thread_id: orderThread.id }]);
  // The customer writes again: the archived conversation comes back to the inbox, unread.
  await customerWrites(app, {
    to: address,
    subject: 'Re: Order 1042 late',
    inReplyTo: order.messageId,
    references: [order.messageId],
  });
  const back = await resend.inboxes.threads.get({ inboxId, threadId: orderThread.id });
  t.match(back.data, { folder: 'inbox', read: false });
  const inbox = await resend.inboxes.get(inboxId);
  t.equal(inbox.data!.unread, 2);
});

t.test('labels on threads, and a deleted label comes off', async (t) => {
  const billing = (await resend.inboxes.labels.create({ inboxId, name: 'Billing', color: '#E93D82' })).data!.id;
  const urgent = (await resend.inboxes.labels.create({ inboxId, name: 'Urgent' })).data!.id;
  const labels = await resend.inboxes.labels.list({ inboxId });
  t.match(labels.data, {
    object: 'list',
    data: [
      { id: billing, name: 'Billing', color: '#E93D82', created_at: String },
      { id: urgent, name: 'Urgent', color: '#6B7280' },
    ],
  });
  const added = await resend.inboxes.threads.labels.add({ inboxId, threadId: invoiceThread.id, labels: [billing] });
  t.same(added.data, { object: 'list', data: [{ id: billing, name: 'Billing', color: '#E93D82' }] });
  const set = await resend.inboxes.threads.labels.set({
    inboxId,
    threadId: invoiceThread.id,
    labels: [urgent, billing],
  });
  t.same(set.data!.data.map((label) => label.name).sort(), ['Billing', 'Urgent']);
  const byLabel = await resend.inboxes.threads.list({ inboxId, labels: [urgent] });
  t.same(
    byLabel.data!.data.map((thread) => thread.id),
    [invoiceThread.id],
  );
  const removed = await resend.inboxes.threads.labels.remove({ inboxId, threadId: invoiceThread.id, labelId: urgent });
  t.same(
    removed.data!.data.map((label) => label.id),
    [billing],
  );
  const labelEvents = await eventsOf('inbox.thread.labels.updated');
  t.match(labelEvents[0], { added: [{ id: billing, name: 'Billing' }], removed: [] });
  t.match(labelEvents.at(-1), { added: [], removed: [{ id: urgent, name: 'Urgent' }] });
  const renamed = await resend.inboxes.labels.update({ inboxId, labelId: billing, name: 'Finance', color: '#3E63DD' });
  t.equal(renamed.error, null);
  t.match((await resend.inboxes.threads.get({ inboxId, threadId: invoiceThread.id })).data!.labels, [
    { name: 'Finance', color: '#3E63DD' },
  ]);
  const gone = await resend.inboxes.labels.remove({ inboxId, labelId: billing });
  t.same(gone.data, { object: 'inbox_label', id: billing, deleted: true });
  t.same((await resend.inboxes.threads.get({ inboxId, threadId: invoiceThread.id })).data!.labels, []);
});

t.test('search: words, addresses, attachments, dates; the matched email is named', async (t) => {
  const words = await resend.inboxes.threads.search({ inboxId, query: 'order 1042' });
  t.equal(words.error, null);
  t.same(
    words.data!.data.map((thread) => thread.id),
    [orderThread.id],
  );
  const orderEmails = (await resend.inboxes.threads.emails.list({ inboxId, threadId: orderThread.id })).data!.data;
  t.equal(words.data!.data[0]!.matched_email_id, orderEmails.at(-1)!.id, 'the newest matching email (the answer)');
  t.not(orderEmails.at(-1)!.id, order.receivedId);
  const from = await resend.inboxes.threads.search({ inboxId, from: ['bea@shop.test'] });
  t.same(
    from.data!.data.map((thread) => thread.id),
    [invoiceThread.id],
  );
  t.equal((await resend.inboxes.threads.search({ inboxId, hasAttachment: true })).data!.data.length, 0);
  t.equal((await resend.inboxes.threads.search({ inboxId, query: '100%_' })).data!.data.length, 0, '% and _ are plain');
  const future = await resend.inboxes.threads.search({ inboxId, startDate: '2099-01-01' });
  t.equal(future.data!.data.length, 0);
  const everything = await resend.inboxes.threads.search({ inboxId });
  t.equal(everything.data!.data.length, 2);
});

t.test('pages walk by latest activity without gaps or repeats', async (t) => {
  const seen: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await resend.inboxes.threads.list({ inboxId, limit: 1, ...(after ? { after } : {}) });
    seen.push(...page.data!.data.map((thread) => thread.id));
    if (!page.data!.has_more) break;
    after = page.data!.data.at(-1)!.id;
  }
  t.same(seen, [orderThread.id, invoiceThread.id], 'the answered order thread is the most recent');
  const back = await resend.inboxes.threads.list({ inboxId, limit: 1, before: invoiceThread.id });
  t.same(
    back.data!.data.map((thread) => thread.id),
    [orderThread.id],
  );
});

t.test('assignment to a team member (the dashboard’s), with its events', async (t) => {
  const cookie = await sessionInTeam(app, 'agent.smith@example.com', team.teamId, 'member');
  const origin = new URL(app.url).origin;
  const assigned = await request(app.url, `/inboxes/${inboxId}/threads/${invoiceThread.id}`, {
    method: 'PATCH',
    headers: { cookie, origin },
    body: { assignee_email: 'Agent.Smith@example.com' },
  });
  t.equal(assigned.status, 200, assigned.text);
  const listed = await resend.inboxes.threads.list({ inboxId });
  t.equal(
    (listed.data!.data.find((thread) => thread.id === invoiceThread.id) as unknown as { assignee_email: string })
      .assignee_email,
    'agent.smith@example.com',
  );
  const summary = await request(app.url, `/inboxes/${inboxId}/threads/${invoiceThread.id}`, { token: team.token });
  t.equal(summary.body.assignee_email, 'agent.smith@example.com', 'the thread itself says who has it');
  t.match(await eventsOf('inbox.thread.assigned'), [
    {
      source: 'dashboard',
      assignee_email: 'agent.smith@example.com',
      assigned_by_email: 'agent.smith@example.com',
      previous_assignee_email: null,
    },
  ]);
  const cleared = await request(app.url, `/inboxes/${inboxId}/threads/${invoiceThread.id}`, {
    method: 'PATCH',
    token: team.token,
    body: { assignee_email: null },
  });
  t.equal(cleared.status, 200);
  t.match(await eventsOf('inbox.thread.unassigned'), [
    { source: 'api', previous_assignee_email: 'agent.smith@example.com' },
  ]);
});

t.test('deleting a thread, and the inbox', async (t) => {
  const removed = await resend.inboxes.threads.remove({ inboxId, threadId: invoiceThread.id });
  t.same(removed.data, { object: 'inbox_thread', id: invoiceThread.id, deleted: true });
  t.equal((await resend.inboxes.threads.get({ inboxId, threadId: invoiceThread.id })).error?.name, 'not_found');
  const stillReceived = await resend.emails.receiving.get(invoice.receivedId);
  t.equal(stillReceived.error, null, 'the received email itself stays');
  const updated = await resend.inboxes.update(address, { name: 'Help desk', fromName: 'Acme Help' });
  t.same(updated.data, { object: 'inbox', id: inboxId });
  t.match((await resend.inboxes.get(address)).data, { name: 'Help desk', from_name: 'Acme Help' });
  const deleted = await resend.inboxes.remove(address);
  t.same(deleted.data, { object: 'inbox', id: inboxId, deleted: true });
  t.equal((await resend.inboxes.get(inboxId)).error?.name, 'not_found');
  t.match(await eventsOf('inbox.deleted'), [{ source: 'api', inbox_id: inboxId }]);
  t.match(await eventsOf('inbox.updated'), [{ source: 'api', inbox: { name: 'Help desk', from_name: 'Acme Help' } }]);
  // The address is free again; mail to it is received but filed in no inbox.
  const again = await resend.inboxes.create({ emailAddress: address });
  t.equal(again.error, null);
  t.equal(
    (await resend.inboxes.threads.list({ inboxId: again.data!.id })).data!.data.length,
    0,
    'a new inbox starts empty',
  );
});
