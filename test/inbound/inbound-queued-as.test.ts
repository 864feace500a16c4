import nodemailer from 'nodemailer';
import { Resend } from 'resend';
import t from 'tap';
import { startInboundServer, type InboundServer } from '../../inbound/inbound-server.js';
import { request } from '../helpers/http.js';
import { receivingDomain } from '../helpers/received-mail.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * Issue 32: the inbound MX's `250 ... queued as <id>` names the received email's API id, so
 * `GET /emails/receiving/<id>` answers 200 for the id a sender's log shows. Through the real
 * Haraka process and its plugins.
 */
const app = await startTestApp();
const team = await app.createTeam('Receiver', 'unlimited');
const other = await app.createTeam('Other', 'unlimited');
const domain = await receivingDomain(app, team.teamId);
const otherDomain = await receivingDomain(app, other.teamId);
const mx: InboundServer = await startInboundServer(app.runtime);
t.teardown(async () => {
  await mx.close();
  await app.close();
});
const transport = nodemailer.createTransport({ host: '127.0.0.1', port: mx.port, secure: false, ignoreTLS: true });
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** The ids the 250 names, in order (Haraka adds its transaction id in parentheses). */
const queuedAs = (response: string) => {
  const match = new RegExp(`^250 .*queued as (${UUID}(?:, ${UUID})*)(?: \\([^)]*\\))?$`).exec(response);
  return match ? match[1]!.split(', ') : [];
};
const received = (token: string, id: string) => request(app.url, `/emails/receiving/${id}`, { token });

t.test('one recipient: the 250 names the received email, which GET /emails/receiving/<id> returns', async (t) => {
  const info = await transport.sendMail({
    from: 'sender@elsewhere.test',
    to: `alice@${domain}`,
    subject: 'Named in the 250',
    text: 'hello',
  });
  const ids = queuedAs(info.response);
  t.equal(ids.length, 1, `one id: ${info.response}`);
  const got = await received(team.token, ids[0]!);
  t.equal(got.status, 200, got.text);
  t.match(got.body, { object: 'email', id: ids[0], subject: 'Named in the 250', received_for: [`alice@${domain}`] });
  const sdk = await new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never).emails.receiving.get(ids[0]!);
  t.equal(sdk.error, null);
  t.equal(sdk.data?.subject, 'Named in the 250', 'and through the resend SDK');
  t.equal((await received(other.token, ids[0]!)).status, 404, 'another team’s key: 404');
});

t.test('several recipients of one team: one received email, named once', async (t) => {
  const info = await transport.sendMail({
    from: 'sender@elsewhere.test',
    to: [`alice@${domain}`, `bob@${domain}`],
    subject: 'Two of one team',
    text: 'hello',
  });
  const ids = queuedAs(info.response);
  t.equal(ids.length, 1, `one id: ${info.response}`);
  const got = await received(team.token, ids[0]!);
  t.equal(got.status, 200);
  t.same([...got.body.received_for].sort(), [`alice@${domain}`, `bob@${domain}`]);
});

t.test('recipients of two teams: one received email each, the 250 names both', async (t) => {
  const info = await transport.sendMail({
    from: 'sender@elsewhere.test',
    to: [`alice@${domain}`, `zed@${otherDomain}`],
    subject: 'Two teams',
    text: 'hello',
  });
  const ids = queuedAs(info.response);
  t.equal(ids.length, 2, `two ids: ${info.response}`);
  const answers = await Promise.all(
    ids.flatMap((id) => [received(team.token, id), received(other.token, id)]).map(async (p) => (await p).status),
  );
  t.same(answers.sort(), [200, 200, 404, 404], 'each id is one team’s received email, 404 for the other');
  const mine = (await Promise.all(ids.map((id) => received(team.token, id)))).find((r) => r.status === 200)!;
  t.same(mine.body.received_for, [`alice@${domain}`]);
  const theirs = (await Promise.all(ids.map((id) => received(other.token, id)))).find((r) => r.status === 200)!;
  t.same(theirs.body.received_for, [`zed@${otherDomain}`]);
});
