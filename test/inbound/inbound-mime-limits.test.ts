import nodemailer from 'nodemailer';
import t from 'tap';
import { startInboundServer, type InboundServer } from '../../inbound/inbound-server.js';
import { receivingDomain } from '../helpers/received-mail.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * The inbound MX (a real Haraka process with our plugins) refuses a message it will never
 * accept permanently (554 5.6.0, the sender stops retrying) and keeps 4xx for its own failures.
 */
const app = await startTestApp();
const team = await app.createTeam('Receiver', 'unlimited');
const domain = await receivingDomain(app, team.teamId);
const mx: InboundServer = await startInboundServer(app.runtime);
t.teardown(async () => {
  await mx.close();
  await app.close();
});
const transport = nodemailer.createTransport({ host: '127.0.0.1', port: mx.port, secure: false, ignoreTLS: true });
const deliver = (raw: string) =>
  transport.sendMail({ envelope: { from: 'sender@elsewhere.test', to: [`alice@${domain}`] }, raw }).then(
    (info) => info.response,
    (err: { response?: string; message: string }) => err.response ?? err.message,
  );

function withParts(n: number): string {
  const parts = Array.from({ length: n }, (_, i) => `--b\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`);
  return `From: sender@elsewhere.test\r\nTo: alice@${domain}\r\nSubject: ${n} parts\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n${parts.join('')}--b--\r\n`;
}

t.test('a message of 1,100 MIME parts gets 554 5.6.0 with the limit, not 451', async (t) => {
  const reply = await deliver(withParts(1100));
  t.match(reply, /^554 5\.6\.0 .*too many MIME parts \(limit 1000\)/, reply);
  const fine = await deliver(withParts(20));
  t.match(fine, /^250 /, `20 parts are received: ${fine}`);
  const rows = await app.runtime.db.knex('received_emails').where({ team_id: team.teamId }).select('subject');
  t.same(
    rows.map((row: { subject: string }) => row.subject),
    ['20 parts'],
    'only the accepted message is stored',
  );
});
