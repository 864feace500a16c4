import nodemailer, { type SendMailOptions } from 'nodemailer';
import t from 'tap';
import { startSubmissionServer, type SubmissionServer } from '../../submission/submission-server.js';
import { request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * From spoofing through a display name over SMTP submission (issue 31, item 9): the submitted
 * message goes through the same rule as POST /emails, and the refusal is a policy one,
 * 550 5.7.1, while other messages the API would refuse stay 550 5.6.0.
 */
const app = await startTestApp();
const server: SubmissionServer = await startSubmissionServer(app.runtime);
t.teardown(async () => {
  await server.close();
  await app.close();
});
const team = await app.createTeam('Smtp spoof', 'unlimited');
const domain = `smtp-${Math.random().toString(36).slice(2, 8)}.test`;
await markedVerifiedDomain(app, team.teamId, domain);
const me = `hello@${domain}`;

const transport = nodemailer.createTransport({
  host: '127.0.0.1',
  port: server.port,
  secure: false,
  requireTLS: true,
  tls: { rejectUnauthorized: false },
  auth: { user: 'anything', pass: team.token },
});
type Outcome = { responseCode: number; response: string };
const outcome = (message: SendMailOptions): Promise<Outcome> =>
  transport.sendMail(message).then(
    (info) => ({ responseCode: Number(info.response.slice(0, 3)), response: info.response }),
    (err: Outcome) => err,
  );
const rawMessage = (from: string, extra: string[] = []) =>
  [
    `From: ${from}`,
    'To: reader@example.net',
    ...extra,
    'Subject: Hi',
    `Message-ID: <${Math.random().toString(36).slice(2)}@client.test>`,
    '',
    'hi',
    '',
  ].join('\r\n');
const envelope = { from: me, to: ['reader@example.net'] };

t.test('a display name showing another address: 550 5.7.1, nothing accepted', async (t) => {
  const b64 = Buffer.from('ceo@bank.example').toString('base64');
  const cases: Array<[string, SendMailOptions]> = [
    ['a quoted address', { envelope, raw: rawMessage(`"ceo@bank.example" <${me}>`) }],
    ['an encoded-word', { envelope, raw: rawMessage(`=?UTF-8?B?${b64}?= <${me}>`) }],
    [
      'a fullwidth @ (the client encodes it)',
      { from: { name: 'ceo\uFF20bank.example', address: me }, to: 'reader@example.net', subject: 'Hi', text: 'hi' },
    ],
    ['a Reply-To name', { envelope, raw: rawMessage(me, ['Reply-To: "support@bank.example" <x@elsewhere.example>']) }],
  ];
  for (const [what, message] of cases) {
    const result = await outcome(message);
    t.equal(result.responseCode, 550, `${what}: 550`);
    t.match(result.response, /^550 5\.7\.1 (from|reply_to): .*(ceo|support)@bank\.example/, `${what}: 5.7.1 and why`);
  }
  const emails = await request(app.url, '/emails', { token: team.token });
  t.equal(emails.body.data.length, 0, 'nothing was accepted');
});

t.test('other refusals keep their code: a To that is no envelope recipient is 550 5.6.0', async (t) => {
  const result = await outcome({ envelope: { from: me, to: ['other@example.net'] }, raw: rawMessage(me) });
  t.equal(result.responseCode, 550);
  t.match(result.response, /^550 5\.6\.0 /);
});

t.test('legitimate names are accepted', async (t) => {
  const accepted: Array<[string, SendMailOptions]> = [
    ['a plain name', { envelope, raw: rawMessage(`Acme <${me}>`) }],
    ['the name equal to the address', { envelope, raw: rawMessage(`"${me.toUpperCase()}" <${me}>`) }],
    [
      'an encoded non-ASCII name',
      { from: { name: 'Zoë Ünal', address: me }, to: 'reader@example.net', subject: 'Hi', text: 'hi' },
    ],
  ];
  for (const [what, message] of accepted) {
    const result = await outcome(message);
    t.match(result.response, /^250 2\.0\.0 Ok: queued as /, `${what}: ${result.response}`);
  }
});
