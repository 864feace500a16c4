import nodemailer from 'nodemailer';
import { Resend } from 'resend';
import t from 'tap';
import { startInboundServer, type InboundServer } from '../../inbound/inbound-server.js';
import { receivingDomain } from '../helpers/received-mail.js';
import { SmtpDialogue } from '../helpers/smtp-dialogue.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * The inbound MX as a real Haraka process with our plugins, fed by real SMTP clients
 * (nodemailer, and raw conversations where the bytes on the wire matter), read back through
 * the resend SDK.
 */
const MAX_BYTES = 64 * 1024;
const app = await startTestApp({ env: { MAILROOM_INBOUND_MAX_MESSAGE_BYTES: String(MAX_BYTES) } });
const team = await app.createTeam('Receiver', 'unlimited');
const other = await app.createTeam('Other', 'unlimited');
const domain = await receivingDomain(app, team.teamId);
const otherDomain = await receivingDomain(app, other.teamId);
const mx: InboundServer = await startInboundServer(app.runtime);
t.teardown(async () => {
  await mx.close();
  await app.close();
});
const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);

const transport = nodemailer.createTransport({ host: '127.0.0.1', port: mx.port, secure: false, ignoreTLS: true });

async function dialogue(): Promise<SmtpDialogue> {
  const smtp = await SmtpDialogue.open(mx.port);
  t.equal((await smtp.reply()).code, 220);
  t.equal((await smtp.command('EHLO client.test')).code, 250);
  return smtp;
}

t.test('a message to a receiving domain is stored and readable through the SDK', async (t) => {
  const info = await transport.sendMail({
    from: 'Sender Name <sender@elsewhere.test>',
    to: `alice@${domain}`,
    cc: 'carol@elsewhere.test',
    subject: 'Quarterly figures',
    text: 'plain body',
    html: '<p>html body <img src="cid:logo@x"></p>',
    attachments: [
      { filename: 'report.csv', content: 'a,b\n1,2\n', contentType: 'text/csv' },
      { filename: 'logo.png', content: Buffer.from('89504e47', 'hex'), cid: 'logo@x' },
    ],
  });
  t.match(info.response, /^250 .*queued as [0-9a-f-]{36}/, `250 with the id: ${info.response}`);

  const list = await resend.emails.receiving.list();
  t.equal(list.error, null);
  const row = list.data!.data.find((e) => e.subject === 'Quarterly figures')!;
  t.ok(row, 'listed');
  t.same(row.to, [`alice@${domain}`]);
  t.equal(row.from, 'Sender Name <sender@elsewhere.test>');
  t.same(row.cc, ['carol@elsewhere.test']);
  t.equal(row.message_id, info.messageId.replace(/[<>]/g, ''));
  t.notOk('html' in row || 'text' in row || 'headers' in row || 'received_for' in row, 'list rows carry no bodies');
  t.equal(row.attachments.length, 2);

  const got = await resend.emails.receiving.get(row.id);
  t.equal(got.error, null);
  const email = got.data!;
  t.equal(email.object, 'email');
  t.same(email.received_for, [`alice@${domain}`]);
  t.match(email.text, /plain body/);
  t.match(email.html, /data:image\/png;base64,/, 'inline images as data: URIs by default');
  t.equal(email.headers!.subject, 'Quarterly figures');
  t.ok(email.headers!.received, 'the MX added its Received header');
  const cid = await resend.emails.receiving.get(row.id, { html_format: 'cid' });
  t.match(cid.data!.html, /cid:logo@x/, 'html_format=cid keeps the cid: references');

  t.ok(email.raw?.download_url, 'a raw download link');
  const raw = await fetch(email.raw!.download_url);
  t.equal(raw.status, 200);
  const source = await raw.text();
  t.match(source, /Subject: Quarterly figures/);
  t.match(source, /^Received: /m);
  const tampered = await fetch(email.raw!.download_url.replace(/signature=[^&]+/, 'signature=AAAA'));
  t.equal(tampered.status, 404, 'a tampered link is refused');

  const attachments = await resend.emails.receiving.attachments.list({ emailId: row.id });
  t.equal(attachments.error, null);
  const csv = attachments.data!.data.find((a) => a.filename === 'report.csv')!;
  t.equal(csv.content_type, 'text/csv');
  const one = await resend.emails.receiving.attachments.get({ emailId: row.id, id: csv.id });
  t.equal(one.data!.id, csv.id);
  const bytes = await fetch(one.data!.download_url);
  t.equal(await bytes.text(), 'a,b\n1,2\n', 'the attachment downloads byte for byte');

  const events = await app.runtime.services.eventLog.list(team.teamId, { type: 'email.received' });
  const event = events.find((e) => e.data.email_id === row.id)!;
  t.ok(event, 'email.received recorded');
  t.same(event.data.received_for, [`alice@${domain}`]);
  t.equal((event.data.attachments as unknown[]).length, 2);
});

t.test('one received email per team whose address the message names', async (t) => {
  const info = await transport.sendMail({
    from: 'x@elsewhere.test',
    to: [`shared@${domain}`, `shared@${otherDomain}`],
    subject: 'for two teams',
    text: 'x',
  });
  t.match(info.response, /^250 /);
  const mine = (await app.runtime.services.receivedEmails.list(team.teamId, { search: 'for two teams' })).emails;
  const theirs = (await app.runtime.services.receivedEmails.list(other.teamId, { search: 'for two teams' })).emails;
  t.equal(mine.length, 1);
  t.equal(theirs.length, 1);
  t.not(mine[0]!.id, theirs[0]!.id);
  t.same(mine[0]!.receivedFor, [`shared@${domain}`], 'each team sees only its own envelope recipients');
  t.same(theirs[0]!.receivedFor, [`shared@${otherDomain}`]);
  t.equal(mine[0]!.rawBlob, theirs[0]!.rawBlob, 'one raw copy shared');
});

t.test('recipients we do not receive for are refused at RCPT with 550 5.1.1', async (t) => {
  const smtp = await dialogue();
  t.equal((await smtp.command('MAIL FROM:<x@elsewhere.test>')).code, 250);
  const unknown = await smtp.command('RCPT TO:<bob@not-ours.test>');
  t.equal(unknown.code, 550);
  t.match(unknown.text, /^5\.1\.1 /);
  const verp = await smtp.command('RCPT TO:<bounces+0193a5c0-0000-7000-8000-000000000000@send.not-ours.test>');
  t.equal(verp.code, 550, 'a VERP address of no email of ours');
  const ok = await smtp.command(`RCPT TO:<bob@${domain}>`);
  t.equal(ok.code, 250);
  smtp.close();
});

t.test('pipelined commands and a message at the size limit and one byte over', async (t) => {
  const body = (size: number, subject: string) => {
    const head = `From: x@elsewhere.test\r\nTo: big@${domain}\r\nSubject: ${subject}\r\n\r\n`;
    // Haraka counts the bytes of the DATA section as received (CRLF line endings, no dot line).
    const filler = 'y'.repeat(76) + '\r\n';
    let text = head;
    while (text.length + filler.length <= size) text += filler;
    return text + 'z'.repeat(size - text.length - 2) + '\r\n';
  };
  const smtp = await dialogue();
  smtp.send(`MAIL FROM:<x@elsewhere.test>\r\nRCPT TO:<big@${domain}>\r\nDATA\r\n`);
  t.equal((await smtp.reply()).code, 250);
  t.equal((await smtp.reply()).code, 250);
  t.equal((await smtp.reply()).code, 354);
  smtp.send(`${body(MAX_BYTES, 'at the limit')}.\r\n`);
  t.equal((await smtp.reply()).code, 250, 'exactly the limit is accepted');
  smtp.send(`MAIL FROM:<x@elsewhere.test>\r\nRCPT TO:<big@${domain}>\r\nDATA\r\n`);
  t.equal((await smtp.reply()).code, 250);
  t.equal((await smtp.reply()).code, 250);
  t.equal((await smtp.reply()).code, 354);
  smtp.send(`${body(MAX_BYTES + 1, 'one over')}.\r\n`);
  const over = await smtp.reply();
  t.equal(over.code, 550, `one byte over is refused at the end of DATA: ${over.code} ${over.text}`);
  smtp.close();
  const stored = (await app.runtime.services.receivedEmails.list(team.teamId, { search: 'one over' })).emails;
  t.equal(stored.length, 0, 'nothing stored for the refused message');
});

t.test('SMTP smuggling probes never split a message', async (t) => {
  for (const [name, terminator] of [
    ['<LF>.<LF>', '\n.\n'],
    ['<CR>.<CR>', '\r.\r'],
    ['<LF>.<CR><LF>', '\n.\r\n'],
  ] as const) {
    const smtp = await dialogue();
    smtp.send(`MAIL FROM:<x@elsewhere.test>\r\nRCPT TO:<probe@${domain}>\r\nDATA\r\n`);
    await smtp.reply();
    await smtp.reply();
    t.equal((await smtp.reply()).code, 354);
    const subject = `probe ${name}`;
    smtp.send(
      `From: x@elsewhere.test\r\nTo: probe@${domain}\r\nSubject: ${subject}\r\n\r\nbefore${terminator}` +
        `MAIL FROM:<smuggled@elsewhere.test>\r\nRCPT TO:<probe@${domain}>\r\nDATA\r\n` +
        `From: smuggled@elsewhere.test\r\nSubject: smuggled\r\n\r\nsmuggled\r\n.\r\n`,
    );
    const reply = await smtp.reply();
    smtp.close();
    // Haraka refuses a bare LF inside DATA outright (451, then it closes): the message is
    // neither split nor accepted. A bare CR is content: one message.
    t.ok(
      reply.code === 250 || (reply.code === 451 && /Bare line-feed/.test(reply.text)),
      `${name}: one message or a refusal (${reply.code} ${reply.text})`,
    );
    const smuggled = (await app.runtime.services.receivedEmails.list(team.teamId, { search: 'smuggled' })).emails;
    t.equal(smuggled.filter((e) => e.subject === 'smuggled').length, 0, `${name}: no second message`);
  }
});

t.test('8BITMIME and SMTPUTF8', async (t) => {
  const smtp = await dialogue();
  t.equal((await smtp.command('MAIL FROM:<jürgen@elsewhere.test> BODY=8BITMIME SMTPUTF8')).code, 250);
  t.equal((await smtp.command(`RCPT TO:<δοκιμή@${domain}>`)).code, 250);
  t.equal((await smtp.command('DATA')).code, 354);
  smtp.send(`From: Jürgen <jürgen@elsewhere.test>\r\nTo: δοκιμή@${domain}\r\nSubject: Grüße\r\n\r\nÄpfel\r\n.\r\n`);
  const reply = await smtp.reply();
  t.equal(reply.code, 250, reply.text);
  smtp.close();
  const [email] = (await app.runtime.services.receivedEmails.list(team.teamId, { search: 'grüße' })).emails;
  t.ok(email, 'stored');
  t.same(email!.receivedFor, [`δοκιμή@${domain}`]);
  const detail = await app.runtime.services.receivedEmails.get(team.teamId, email!.id);
  t.match(detail.text, /Äpfel/);
});

t.test('list filters: search, dates, pagination, and errors', async (t) => {
  const all = await resend.emails.receiving.list({ limit: 2 });
  t.equal(all.data!.data.length, 2);
  t.equal(all.data!.has_more, true);
  const next = await resend.emails.receiving.list({ limit: 2, after: all.data!.data[1]!.id });
  t.notSame(next.data!.data[0]!.id, all.data!.data[0]!.id);
  const bySender = await fetch(`${app.url}/emails/receiving?search=sender%20name`, {
    headers: { authorization: `Bearer ${team.token}` },
  });
  t.equal(((await bySender.json()) as { data: unknown[] }).data.length, 1, 'search matches the sender name');
  const future = await fetch(`${app.url}/emails/receiving?start_date=2999-01-01`, {
    headers: { authorization: `Bearer ${team.token}` },
  });
  t.equal(((await future.json()) as { data: unknown[] }).data.length, 0);
  const bad = await fetch(`${app.url}/emails/receiving?end_date=2020-01-01&start_date=2021-01-01`, {
    headers: { authorization: `Bearer ${team.token}` },
  });
  const body = (await bad.json()) as { name: string };
  t.equal(bad.status, 422);
  t.equal(body.name, 'invalid_parameter');
  t.match(body, { statusCode: 422, message: String });
  const missing = await resend.emails.receiving.get('0193a5c0-0000-7000-8000-000000000000');
  t.equal(missing.error?.name, 'not_found');
  const foreign = await new Resend(other.token, { baseUrl: `${app.url}/api/v1` } as never).emails.receiving.list();
  t.notOk(
    foreign.data!.data.some((e) => e.subject === 'Quarterly figures'),
    "another team's list does not show this team's mail",
  );
});
