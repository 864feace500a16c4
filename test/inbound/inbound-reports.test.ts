import nodemailer from 'nodemailer';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { sendEmailSchema } from '../../core/sending/emails/email.schemas.js';
import { startInboundServer } from '../../inbound/inbound-server.js';
import { feedbackReport } from '../helpers/feedback-report.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';
import { WebhookReceiver, startWebhookApp } from '../helpers/webhook-receiver.js';

/**
 * Reports after a 250, end to end: an email is sent, then its bounce (DSN) or the recipient's
 * complaint (ARF) arrives at the MX over SMTP; the email.bounced / email.complained webhook is
 * delivered and signed, and the recipient is suppressed.
 */
const fx = await startWebhookApp();
const { app, team } = fx;
const receiver = await WebhookReceiver.start();
const endpoint = await fx.createEndpoint(receiver.url(), ['email.bounced', 'email.complained']);
const mx = await startInboundServer(app.runtime);
t.teardown(async () => {
  await mx.close();
  await receiver.down();
  await fx.close();
});
const transport = nodemailer.createTransport({ host: '127.0.0.1', port: mx.port, secure: false, ignoreTLS: true });

const name = `out-${Math.random().toString(36).slice(2, 8)}.test`;
const domain = await markedVerifiedDomain(app, team.teamId, name);
const returnPath = `${domain.customReturnPath}.${name}`;

async function sendOne(to: string) {
  const auth = await app.runtime.services.apiKeys.authenticate(team.token);
  return app.runtime.services.emailAcceptance.accept(
    auth,
    sendEmailSchema.parse({ from: `news@${name}`, to, subject: 'Hello', text: 'hi' }),
  );
}

function deliveryStatusReport(emailId: string, recipient: string, status: string, diagnostic: string): string {
  return [
    `From: Mail Delivery System <MAILER-DAEMON@mx.example.net>`,
    `To: bounces+${emailId}@${returnPath}`,
    `Subject: Undelivered Mail Returned to Sender`,
    `MIME-Version: 1.0`,
    `Content-Type: multipart/report; report-type=delivery-status; boundary="b1"`,
    ``,
    `--b1`,
    `Content-Type: text/plain`,
    ``,
    `Your message could not be delivered.`,
    `--b1`,
    `Content-Type: message/delivery-status`,
    ``,
    `Reporting-MTA: dns; mx.example.net`,
    ``,
    `Final-Recipient: rfc822; ${recipient}`,
    `Action: failed`,
    `Status: ${status}`,
    `Diagnostic-Code: smtp; ${diagnostic}`,
    ``,
    `--b1`,
    `Content-Type: text/rfc822-headers`,
    ``,
    `Message-ID: <${emailId}@${name}>`,
    `From: news@${name}`,
    `To: ${recipient}`,
    `Subject: Hello`,
    ``,
    `--b1--`,
    ``,
  ].join('\r\n');
}

const verify = (body: string, headers: Record<string, unknown>) =>
  new Webhook(endpoint.secret).verify(body, headers as Record<string, string>) as {
    type: string;
    data: Record<string, unknown>;
  };

t.test('a DSN to the VERP address: email.bounced webhook and the suppression', async (t) => {
  const email = await sendOne('gone@example.net');
  const info = await transport.sendMail({
    envelope: { from: '', to: [`bounces+${email.id}@${returnPath}`] },
    raw: deliveryStatusReport(email.id, 'gone@example.net', '5.1.1', '550 5.1.1 <gone@example.net>: User unknown'),
  });
  t.match(info.response, /^250 /);
  await receiver.waitFor(1);
  const hook = receiver.received[0]!;
  const payload = verify(hook.body, hook.headers);
  t.equal(payload.type, 'email.bounced');
  t.equal(payload.data.email_id, email.id);
  t.match(payload.data.bounce, { type: 'Permanent', diagnosticCode: [/550 5\.1\.1/] });
  t.same(payload.data.to, ['gone@example.net']);
  const suppression = await app.runtime.services.suppressions.get(team.teamId, 'gone@example.net');
  t.equal(suppression.origin, 'bounce');
  t.equal(suppression.sourceId, email.id);
});

t.test('a transient failure after 250 is a Transient bounce and suppresses no one', async (t) => {
  const email = await sendOne('full@example.net');
  await transport.sendMail({
    envelope: { from: '', to: [`bounces+${email.id}@${returnPath}`] },
    raw: deliveryStatusReport(email.id, 'full@example.net', '4.2.2', '452 4.2.2 Mailbox full'),
  });
  await receiver.waitFor(2);
  const payload = verify(receiver.received[1]!.body, receiver.received[1]!.headers);
  t.equal(payload.type, 'email.bounced');
  t.match(payload.data.bounce, { type: 'Transient' });
  const suppressed = await app.runtime.services.suppressions.suppressedAmong(team.teamId, ['full@example.net']);
  t.equal(suppressed.size, 0);
});

t.test('an ARF report to the feedback-loop address: email.complained and the suppression', async (t) => {
  const email = await sendOne('angry@example.net');
  const info = await transport.sendMail({
    envelope: { from: 'fbl@mail.example.net', to: [`fbl@${app.runtime.config.mta.hostname}`] },
    raw: feedbackReport(
      `fbl@${app.runtime.config.mta.hostname}`,
      { emailId: email.id, domain: name },
      {
        rcptTo: 'angry@example.net',
        to: 'angry@example.net',
      },
    ),
  });
  t.match(info.response, /^250 /);
  await receiver.waitFor(3);
  const payload = verify(receiver.received[2]!.body, receiver.received[2]!.headers);
  t.equal(payload.type, 'email.complained');
  t.equal(payload.data.email_id, email.id);
  const suppression = await app.runtime.services.suppressions.get(team.teamId, 'angry@example.net');
  t.equal(suppression.origin, 'complaint');
});

t.test('a report naming someone the email was not sent to changes nothing', async (t) => {
  const email = await sendOne('real@example.net');
  const info = await transport.sendMail({
    envelope: { from: '', to: [`bounces+${email.id}@${returnPath}`] },
    raw: deliveryStatusReport(email.id, 'victim@example.net', '5.1.1', '550 5.1.1 User unknown'),
  });
  t.match(info.response, /^250 /, 'accepted (never bounced back)');
  const suppressed = await app.runtime.services.suppressions.suppressedAmong(team.teamId, ['victim@example.net']);
  t.equal(suppressed.size, 0, 'a forged report cannot suppress an arbitrary address');
  const events = await app.runtime.services.eventLog.list(team.teamId, { type: 'email.bounced' });
  t.notOk(events.some((e) => e.data.email_id === email.id));
});
