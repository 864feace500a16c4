import t from 'tap';
import { customerWrites, startInboxApp } from '../../helpers/inbox-fixture.js';

/**
 * The acceptance conversation of issue 38: an inbound message, a reply from a draft, the
 * customer's answer (In-Reply-To), and a forward of it: one thread, four emails, in order, each
 * with the headers RFC 5322 3.6.4 asks for.
 */
const fx = await startInboxApp();
t.teardown(() => fx.app.close());
const { resend, app, address, inboxId } = fx;

/** The header block of an email we sent, unfolded, as name (lower case) -> value. */
async function sentHeaders(emailId: string): Promise<Map<string, string>> {
  const email = await app.runtime.services.emails.find(fx.team.teamId, emailId);
  const mime = (await app.runtime.services.emails.mime(email))!.toString('latin1');
  const block = mime.slice(0, mime.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  return new Map(
    block
      .split('\r\n')
      .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
}

t.test('one thread, four emails, in order, headers as RFC 5322 says', async (t) => {
  const first = await customerWrites(app, { to: address, subject: 'Where is my order?' });
  const threads = await resend.inboxes.threads.list({ inboxId });
  t.equal(threads.error, null);
  t.equal(threads.data!.data.length, 1, 'the message started a thread');
  const thread = threads.data!.data[0]!;
  t.match(thread, {
    subject: 'Where is my order?',
    from: 'Casey Customer <casey@customer.test>',
    to: [address],
    email_count: 1,
    read: false,
    folder: 'inbox',
    has_draft: false,
    has_attachment: false,
  });

  // A reply written as a draft, then sent.
  const draft = await resend.inboxes.drafts.create({
    inboxId,
    threadId: thread.id,
    replyToEmailId: first.receivedId,
    text: 'It ships tomorrow.',
  });
  t.equal(draft.error, null);
  const listed = await resend.inboxes.threads.list({ inboxId });
  t.equal(listed.data!.data[0]!.has_draft, true, 'the thread shows its draft');
  const sent = await resend.inboxes.drafts.send({ inboxId, draftId: draft.data!.id });
  t.equal(sent.error, null);
  const replyHeaders = await sentHeaders(sent.data!.id);
  t.equal(replyHeaders.get('in-reply-to'), first.messageId, 'In-Reply-To names the customer’s message');
  t.equal(replyHeaders.get('references'), first.messageId, 'References: the parent’s id');
  t.equal(replyHeaders.get('reply-to'), address, 'Reply-To is the inbox');
  t.equal(replyHeaders.get('subject'), 'Re: Where is my order?');
  t.match(replyHeaders.get('to'), /casey@customer\.test/, 'to the customer');
  t.match(replyHeaders.get('from'), /Acme Support.*<support@/, 'from the inbox with its sender name');
  const replyMessageId = replyHeaders.get('message-id')!;

  // The customer answers the reply.
  const answer = await customerWrites(app, {
    to: address,
    subject: 'Re: Where is my order?',
    inReplyTo: replyMessageId,
    references: [first.messageId, replyMessageId],
    text: 'Thanks! Can billing refund the shipping?',
  });

  // Forwarded to billing.
  const forward = await resend.inboxes.threads.emails.forward({
    inboxId,
    threadId: thread.id,
    emailId: answer.receivedId,
    to: 'billing@partner.test',
    text: 'Over to you.',
  });
  t.equal(forward.error, null);
  const forwardHeaders = await sentHeaders(forward.data!.id);
  t.equal(forwardHeaders.get('in-reply-to'), answer.messageId, 'the forward refers to what it forwards');
  t.equal(
    forwardHeaders.get('references'),
    [first.messageId, replyMessageId, answer.messageId].join(' '),
    'References: the whole chain, oldest first',
  );
  t.equal(forwardHeaders.get('subject'), 'Fwd: Re: Where is my order?');

  const all = await resend.inboxes.threads.list({ inboxId });
  t.equal(all.data!.data.length, 1, 'still one thread');
  t.equal(all.data!.data[0]!.email_count, 4);
  t.equal(all.data!.data[0]!.has_draft, false, 'the sent draft is no longer open');
  const emails = await resend.inboxes.threads.emails.list({ inboxId, threadId: thread.id });
  t.equal(emails.error, null);
  t.same(
    emails.data!.data.map((e) => e.direction),
    ['inbound', 'outbound', 'inbound', 'outbound'],
    'in order: question, reply, answer, forward',
  );
  t.same(
    emails.data!.data.map((e) => e.id),
    [first.receivedId, sent.data!.id, answer.receivedId, forward.data!.id],
  );
  t.equal(emails.data!.data[0]!.text?.trim(), 'Hello, my order has not arrived.');
  t.equal(emails.data!.data[1]!.text, 'It ships tomorrow.');
  t.match(emails.data!.data[3]!.text, /Over to you\.[\s\S]*Forwarded message[\s\S]*Can billing refund/);
  t.equal(emails.data!.data[0]!.message_id, first.messageId);
  const one = await resend.inboxes.threads.emails.get({ inboxId, threadId: thread.id, emailId: answer.receivedId });
  t.equal(one.error, null);
  t.match(one.data, { id: answer.receivedId, direction: 'inbound', subject: 'Re: Where is my order?', read: false });
  const inbox = await resend.inboxes.get(inboxId);
  t.match(inbox.data, { object: 'inbox', id: inboxId, unread: 1, drafts: 0, email_address: address, name: 'Support' });
});

t.test('a message that refers to nothing known starts its own thread', async (t) => {
  await customerWrites(app, { to: address, subject: 'Another question', inReplyTo: '<unknown@elsewhere.test>' });
  const threads = await resend.inboxes.threads.list({ inboxId });
  t.equal(threads.data!.data.length, 2);
  t.equal(threads.data!.data[0]!.subject, 'Another question', 'newest activity first');
});

t.test('a thread’s emails page oldest first, forwards and back', async (t) => {
  const threadId = (await resend.inboxes.threads.list({ inboxId })).data!.data.find(
    (thread) => thread.email_count === 4,
  )!.id;
  const all = (await resend.inboxes.threads.emails.list({ inboxId, threadId })).data!.data.map((email) => email.id);
  const first = await resend.inboxes.threads.emails.list({ inboxId, threadId, limit: 2 });
  t.same(
    first.data!.data.map((email) => email.id),
    all.slice(0, 2),
  );
  t.equal(first.data!.has_more, true);
  const second = await resend.inboxes.threads.emails.list({ inboxId, threadId, limit: 2, after: all[1]! });
  t.same(
    second.data!.data.map((email) => email.id),
    all.slice(2),
  );
  t.equal(second.data!.has_more, false);
  const back = await resend.inboxes.threads.emails.list({ inboxId, threadId, limit: 2, before: all[3]! });
  t.same(
    back.data!.data.map((email) => email.id),
    all.slice(1, 3),
  );
});
