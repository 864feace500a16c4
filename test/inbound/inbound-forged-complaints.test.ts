import nodemailer from 'nodemailer';
import t, { type Test as Tap } from 'tap';
import { Webhook } from 'standardwebhooks';
import { sendEmailSchema } from '../../core/sending/emails/email.schemas.js';
import { startInboundServer } from '../../inbound/inbound-server.js';
import { feedbackReport, type FeedbackReportClues as Clues } from '../helpers/feedback-report.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';
import { WebhookReceiver, startWebhookApp } from '../helpers/webhook-receiver.js';

/**
 * Forged complaints (issue 31, item 6), through the real MX: an ARF report is honoured only when
 * the recipient it names is one of the email's recipients. One that names someone else changes
 * nothing (no email.complained, no suppression, no webhook) and is logged at warn with the
 * reason. A report whose recipient is redacted or absent (as many providers send them) still
 * counts for the email's only recipient; for an email with several recipients it is ignored.
 */
const fx = await startWebhookApp();
const { app, team } = fx;
const receiver = await WebhookReceiver.start();
const endpoint = await fx.createEndpoint(receiver.url(), ['email.complained']);
const mx = await startInboundServer(app.runtime);
t.teardown(async () => {
  await mx.close();
  await receiver.down();
  await fx.close();
});
const transport = nodemailer.createTransport({ host: '127.0.0.1', port: mx.port, secure: false, ignoreTLS: true });

const name = `forged-${Math.random().toString(36).slice(2, 8)}.test`;
const domain = await markedVerifiedDomain(app, team.teamId, name);
const returnPath = `${domain.customReturnPath}.${name}`;
const fbl = `fbl@${app.runtime.config.mta.hostname}`;

// The warn lines of the process logger (silent in tests): what an operator reads.
const warnings: Array<Record<string, unknown>> = [];
const logger = app.runtime.logger as unknown as { warn: (...args: unknown[]) => void };
const originalWarn = logger.warn;
logger.warn = (entry: unknown, ...rest: unknown[]) => {
  if (typeof entry === 'object' && entry !== null) warnings.push(entry as Record<string, unknown>);
  return originalWarn.call(app.runtime.logger, entry, ...rest);
};
t.teardown(() => void (logger.warn = originalWarn));

async function sendTo(to: string | string[]) {
  const auth = await app.runtime.services.apiKeys.authenticate(team.token);
  return app.runtime.services.emailAcceptance.accept(
    auth,
    sendEmailSchema.parse({ from: `news@${name}`, to, subject: 'Hello', text: 'hi' }),
  );
}

/** Delivers the report to the feedback-loop address, or to the email's VERP address. */
async function report(t: Tap, emailId: string, clues: Clues, at: 'fbl' | 'verp' = 'fbl') {
  const to = at === 'fbl' ? fbl : `bounces+${emailId}@${returnPath}`;
  const info = await transport.sendMail({
    envelope: { from: 'fbl@mail.example.net', to: [to] },
    raw: feedbackReport(fbl, { emailId, domain: name }, clues),
  });
  t.match(info.response, /^250 /, 'a report is always accepted (never bounced back)');
}

const complainedEvents = async (emailId: string) =>
  (await app.runtime.services.eventLog.list(team.teamId, { type: 'email.complained' })).filter(
    (event) => event.data.email_id === emailId,
  );
const suppressedAmong = async (addresses: string[]) =>
  [...(await app.runtime.services.suppressions.suppressedAmong(team.teamId, addresses))].sort();
const lastEvent = async (emailId: string) =>
  (await app.runtime.services.emails.get(team.teamId, emailId)).email.lastEvent;

async function assertIgnored(t: Tap, emailId: string, addresses: string[], reason?: RegExp) {
  t.same(await complainedEvents(emailId), [], 'no email.complained');
  t.same(await suppressedAmong(addresses), [], 'nobody suppressed');
  t.not(await lastEvent(emailId), 'complained', 'the email is not marked complained');
  if (!reason) return;
  t.ok(
    warnings.some((w) => w.emailId === emailId && typeof w.reason === 'string' && reason.test(w.reason)),
    `logged at warn: ${reason}`,
  );
}

let honoured = 0;
async function assertComplained(t: Tap, emailId: string, recipient: string) {
  honoured += 1;
  await receiver.waitFor(honoured);
  const hooks = receiver.received.map(
    (hook) =>
      new Webhook(endpoint.secret).verify(hook.body, hook.headers as Record<string, string>) as {
        type: string;
        data: { email_id: string; to: string[] };
      },
  );
  t.equal(hooks.length, honoured, 'one webhook per honoured report, none for an ignored one');
  t.ok(
    hooks.every((hook) => hook.type === 'email.complained'),
    'email.complained webhooks',
  );
  t.equal(hooks[honoured - 1]!.data.email_id, emailId, 'the webhook is about this email');
  t.equal((await complainedEvents(emailId)).length, 1, 'one email.complained');
  t.same(await suppressedAmong([recipient]), [recipient.toLowerCase()], `${recipient} suppressed`);
  const suppression = await app.runtime.services.suppressions.get(team.teamId, recipient);
  t.equal(suppression.origin, 'complaint');
  t.equal(suppression.sourceId, emailId);
}

t.test('a report at the FBL address naming someone else changes nothing', async (t) => {
  const email = await sendTo('real@example.net');
  await report(t, email.id, { rcptTo: 'victim@example.net', to: 'victim@example.net' });
  await assertIgnored(t, email.id, ['real@example.net', 'victim@example.net'], /not one of the email's recipients/);
});

t.test('a report at the VERP address naming someone else changes nothing', async (t) => {
  const email = await sendTo('real2@example.net');
  await report(t, email.id, { rcptTo: 'victim2@example.net' }, 'verp');
  await assertIgnored(t, email.id, ['real2@example.net', 'victim2@example.net'], /not one of the email's recipients/);
});

t.test('the original To alone naming someone else changes nothing', async (t) => {
  const email = await sendTo('real3@example.net');
  await report(t, email.id, { to: 'Victim <victim3@example.net>' });
  await assertIgnored(t, email.id, ['real3@example.net', 'victim3@example.net'], /not one of the email's recipients/);
});

t.test('a forged report for one of several recipients names someone else: nothing', async (t) => {
  const email = await sendTo(['one@example.net', 'two@example.net']);
  await report(t, email.id, { rcptTo: 'victim4@example.net' });
  await assertIgnored(
    t,
    email.id,
    ['one@example.net', 'two@example.net', 'victim4@example.net'],
    /not one of the email's recipients/,
  );
});

t.test('the recipient named in another case is the recipient', async (t) => {
  const email = await sendTo('Casey@example.net');
  await report(t, email.id, { rcptTo: 'CASEY@EXAMPLE.NET', to: 'casey@Example.Net' });
  await assertComplained(t, email.id, 'Casey@example.net');
});

t.test('a redacted recipient still counts for the email to one person', async (t) => {
  const email = await sendTo('hidden@example.net');
  await report(t, email.id, { rcptTo: 'xxxxxxxx@example.net', to: 'redacted@example.net' });
  await assertComplained(t, email.id, 'hidden@example.net');
});

t.test('a partly masked recipient is a redacted one', async (t) => {
  const email = await sendTo('hannah@example.net');
  await report(t, email.id, { rcptTo: 'h****h@example.net' });
  await assertComplained(t, email.id, 'hannah@example.net');
});

t.test('a report naming no recipient at all counts for the email to one person (VERP)', async (t) => {
  const email = await sendTo('quiet@example.net');
  await report(t, email.id, {}, 'verp');
  await assertComplained(t, email.id, 'quiet@example.net');
});

t.test('several recipients: the one named is complained, a redacted one names nobody', async (t) => {
  const email = await sendTo(['ann@example.net', 'bob@example.net']);
  await report(t, email.id, { rcptTo: 'xxxx@example.net' });
  await assertIgnored(t, email.id, ['ann@example.net', 'bob@example.net']);
  await report(t, email.id, { rcptTo: 'bob@example.net', to: 'ann@example.net, bob@example.net' });
  await assertComplained(t, email.id, 'bob@example.net');
  t.same(await suppressedAmong(['ann@example.net']), [], 'the other recipient is not suppressed');
});

t.test('a forward: the mailbox named is not a recipient, the original To is', async (t) => {
  const email = await sendTo('alias@example.net');
  await report(t, email.id, {
    to: 'alias@example.net',
    originalHeaders: ['X-HmXmrOriginalRecipient: <inbox@outlook.test>'],
  });
  await assertComplained(t, email.id, 'alias@example.net');
});
