import nodemailer from 'nodemailer';
import { Resend } from 'resend';
import t from 'tap';
import { startInboundServer } from '../../inbound/inbound-server.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';
import { receivingDomain } from '../helpers/received-mail.js';

/**
 * The SDK's emails.receiving.forward, unchanged, against the appliance: it reads the received
 * email, downloads its raw source through the signed link and sends through POST /emails; the
 * forwarded copy goes through the MTA to a sink, in both modes (passthrough and wrapped).
 */
const fx = await startMtaFixture({ sinkHosts: ['127.0.0.10'] });
const mx = await startInboundServer(fx.app.runtime);
t.teardown(async () => {
  await mx.close();
  await fx.close();
});
fx.dns.add(
  { type: 'MX', name: 'forward.test', exchange: 'mx.forward.test', priority: 10 },
  { type: 'A', name: 'mx.forward.test', address: '127.0.0.10' },
);
const [sink] = fx.sinks;
const inbox = await receivingDomain(fx.app, fx.teamId);
const resend = new Resend(fx.token, { baseUrl: `${fx.app.url}/api/v1` } as never);

const incoming = await nodemailer
  .createTransport({ host: '127.0.0.1', port: mx.port, secure: false, ignoreTLS: true })
  .sendMail({
    from: 'Customer <customer@elsewhere.test>',
    to: `support@${inbox}`,
    subject: 'Broken invoice',
    text: 'The invoice is wrong.',
    html: '<p>The invoice is <b>wrong</b>.</p>',
    attachments: [{ filename: 'invoice.txt', content: 'total: 42\n' }],
  });
if (!incoming.response.startsWith('250 ')) throw new Error(`the MX refused: ${incoming.response}`);
const list = await resend.emails.receiving.list();
const received = list.data!.data.find((e) => e.subject === 'Broken invoice')!;

const arrived = (subject: string) =>
  fx.waitFor(
    async () => sink!.messages.find((m) => m.data.toString('utf8').includes(subject)),
    `"${subject}" at the sink`,
  );

t.test('passthrough: the original content and attachments, sent again', async (t) => {
  const forwarded = await resend.emails.receiving.forward({
    emailId: received.id,
    from: 'Support <help@sender.test>',
    to: 'agent@forward.test',
  });
  t.equal(forwarded.error, null, JSON.stringify(forwarded.error));
  t.match(forwarded.data!.id, /^[0-9a-f-]{36}$/);
  const atSink = await arrived('Subject: Broken invoice');
  t.same(atSink.to, ['agent@forward.test']);
  const source = atSink.data.toString('utf8');
  t.match(source, /The invoice is/);
  t.match(source, /invoice\.txt/, 'the attachment travels with it');
  await fx.waitForEvents(forwarded.data!.id, ['email.delivered']);
});

t.test('wrapped: a new message with the original attached as message/rfc822', async (t) => {
  const forwarded = await resend.emails.receiving.forward({
    emailId: received.id,
    from: 'Support <help@sender.test>',
    to: ['lead@forward.test'],
    passthrough: false,
    text: 'See the customer message below.',
  });
  t.equal(forwarded.error, null, JSON.stringify(forwarded.error));
  const atSink = await arrived('Subject: Fwd: Broken invoice');
  const source = atSink.data.toString('utf8');
  t.match(source, /See the customer message below\./);
  t.match(source, /message\/rfc822/);
  t.match(source, /forwarded_message\.eml/);
});
