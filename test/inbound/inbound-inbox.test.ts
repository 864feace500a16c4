import nodemailer from 'nodemailer';
import { Resend } from 'resend';
import t from 'tap';
import { startInboundServer, type InboundServer } from '../../inbound/inbound-server.js';
import { receivingDomain } from '../helpers/received-mail.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * Shared inboxes through the real MX (Haraka and our plugins, SMTP on loopback): a message to an
 * inbox's address becomes a thread; the customer's answer to our reply (In-Reply-To,
 * References) joins it; one message to two inboxes of a team is in both; a message for an
 * address without an inbox is received mail only.
 */
const app = await startTestApp();
const team = await app.createTeam('Help desk', 'unlimited');
await app.runtime.services.teams.setTier(team.teamId, 2);
const domain = await receivingDomain(app, team.teamId);
const mx: InboundServer = await startInboundServer(app.runtime);
t.teardown(async () => {
  await mx.close();
  await app.close();
});
const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);
const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: mx.port, secure: false, ignoreTLS: true });
const support = (await resend.inboxes.create({ emailAddress: `support@${domain}` })).data!.id;
const sales = (await resend.inboxes.create({ emailAddress: `sales@${domain}` })).data!.id;

t.test('a conversation over SMTP is one thread', async (t) => {
  await smtp.sendMail({
    from: 'Dana <dana@customer.test>',
    to: `support@${domain}`,
    subject: 'Broken login',
    text: 'I cannot log in.',
    messageId: '<login-1@customer.test>',
  });
  const thread = (await resend.inboxes.threads.list({ inboxId: support })).data!.data[0]!;
  t.match(thread, { subject: 'Broken login', email_count: 1, folder: 'inbox', read: false });
  const first = (await resend.inboxes.threads.emails.list({ inboxId: support, threadId: thread.id })).data!.data[0]!;
  t.equal(first.message_id, '<login-1@customer.test>');
  const reply = await resend.inboxes.threads.emails.reply({
    inboxId: support,
    threadId: thread.id,
    emailId: first.id,
    text: 'Try resetting your password.',
  });
  t.equal(reply.error, null);
  const sent = await app.runtime.services.emails.find(team.teamId, reply.data!.id);
  await smtp.sendMail({
    from: 'Dana <dana@customer.test>',
    to: `support@${domain}`,
    subject: 'Re: Broken login',
    text: 'That worked, thanks.',
    inReplyTo: sent.messageId,
    references: ['<login-1@customer.test>', sent.messageId],
  });
  const emails = (await resend.inboxes.threads.emails.list({ inboxId: support, threadId: thread.id })).data!.data;
  t.same(
    emails.map((email) => [email.direction, email.subject]),
    [
      ['inbound', 'Broken login'],
      ['outbound', 'Re: Broken login'],
      ['inbound', 'Re: Broken login'],
    ],
  );
  t.equal((await resend.inboxes.threads.list({ inboxId: support })).data!.data.length, 1, 'one thread');
});

t.test('one message to two inboxes is in each; an address without an inbox is received mail only', async (t) => {
  await smtp.sendMail({
    from: 'erin@customer.test',
    to: [`support@${domain}`, `sales@${domain}`, `nobody@${domain}`],
    subject: 'Quote and support',
    text: 'Both, please.',
  });
  const inSales = (await resend.inboxes.threads.list({ inboxId: sales })).data!.data;
  t.same(
    inSales.map((thread) => thread.subject),
    ['Quote and support'],
  );
  const inSupport = (await resend.inboxes.threads.list({ inboxId: support })).data!.data;
  t.equal(inSupport.length, 2);
  const received = (await resend.emails.receiving.list()).data!.data.filter(
    (email) => email.subject === 'Quote and support',
  );
  t.equal(received.length, 1, 'one received email for the team, filed in two inboxes');
});
