import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { receiveMessage, receivingDomain } from '../helpers/received-mail.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * Fields Resend omits when empty are absent, never null (issue 38, item 8): a received
 * attachment's content_id when the part had no Content-ID (everywhere), and its filename on
 * the attachment routes (the SDK's AttachmentData: `filename?: string`, `content_id?: string`).
 * Inside the email itself filename stays null (Resend's schema: nullable). The SDK is the client.
 */
const app = await startTestApp();
t.teardown(() => app.close());

const team = await app.createTeam('Shapes');
const neighbour = await app.createTeam('Neighbour');
const inbox = await receivingDomain(app, team.teamId);
const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);

const raw = [
  'From: Sender <sender@elsewhere.test>',
  `To: shapes@${inbox}`,
  'Subject: Three parts',
  'Message-ID: <shapes@elsewhere.test>',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="part"',
  '',
  '--part',
  'Content-Type: text/html',
  '',
  '<p>see <img src="cid:logo@x"></p>',
  '--part',
  'Content-Type: image/png',
  'Content-Disposition: inline; filename="logo.png"',
  'Content-ID: <logo@x>',
  'Content-Transfer-Encoding: base64',
  '',
  Buffer.from('89504e47', 'hex').toString('base64'),
  '--part',
  'Content-Type: text/csv',
  'Content-Disposition: attachment; filename="report.csv"',
  '',
  'a,b',
  '--part',
  'Content-Type: application/octet-stream',
  'Content-Disposition: attachment',
  'Content-Transfer-Encoding: base64',
  '',
  Buffer.from('no name').toString('base64'),
  '--part--',
  '',
].join('\r\n');
const result = await receiveMessage(app, { from: 'sender@elsewhere.test', to: [`shapes@${inbox}`], raw });
const emailId = result.received[0]!.id;

type Summary = { id: string; filename?: string | null; content_type: string; content_id?: string | null };
const byType = <T extends Summary>(list: T[], type: string): T => list.find((a) => a.content_type === type)!;

t.test('inside the received email (list row and retrieve): content_id absent when none', async (t) => {
  const listed = await resend.emails.receiving.list();
  t.equal(listed.error, null);
  const row = listed.data!.data.find((e) => e.id === emailId)!;
  const got = await resend.emails.receiving.get(emailId);
  t.equal(got.error, null);
  for (const [label, attachments] of [
    ['list row', row.attachments],
    ['retrieve', got.data!.attachments],
  ] as const) {
    t.equal(attachments.length, 3, `${label}: three attachments`);
    const logo = byType(attachments, 'image/png');
    t.equal(logo.content_id, 'logo@x', `${label}: the inline part’s content_id`);
    const csv = byType(attachments, 'text/csv');
    t.notOk('content_id' in csv, `${label}: no content_id key without a Content-ID (was null)`);
    t.equal(csv.filename, 'report.csv');
    const nameless = byType(attachments, 'application/octet-stream');
    t.notOk('content_id' in nameless, `${label}: no content_id key`);
    t.equal(nameless.filename, null, `${label}: filename stays null inside the email (nullable there)`);
    for (const attachment of attachments)
      t.notOk(Object.values(attachment).includes(undefined as never), `${label}: no undefined values`);
  }
  const http = await request(app.url, `/emails/receiving/${emailId}`, { token: team.token });
  const csv = byType(http.body.attachments, 'text/csv');
  t.same(Object.keys(csv).sort(), ['content_disposition', 'content_type', 'filename', 'id', 'size'], 'on the wire');
});

t.test('the attachment routes: filename and content_id absent when none, as AttachmentData types them', async (t) => {
  const list = await resend.emails.receiving.attachments.list({ emailId });
  t.equal(list.error, null);
  const attachments = list.data!.data;
  t.equal(attachments.length, 3);
  const logo = byType(attachments, 'image/png');
  t.match(logo, { object: 'attachment', filename: 'logo.png', content_id: 'logo@x', content_disposition: 'inline' });
  const csv = byType(attachments, 'text/csv');
  t.notOk('content_id' in csv, 'no content_id key');
  t.equal(csv.filename, 'report.csv');
  const nameless = byType(attachments, 'application/octet-stream');
  t.notOk('content_id' in nameless, 'no content_id key');
  t.notOk('filename' in nameless, 'no filename key (was null)');
  t.ok(nameless.download_url, 'still downloadable');

  const one = await resend.emails.receiving.attachments.get({ emailId, id: nameless.id });
  t.equal(one.error, null);
  t.same(Object.keys(one.data!).sort(), [
    'content_disposition',
    'content_type',
    'download_url',
    'expires_at',
    'id',
    'object',
    'size',
  ]);
  const bytes = await fetch(one.data!.download_url);
  t.equal(await bytes.text(), 'no name');
});

t.test('another team’s received email and attachment are 404', async (t) => {
  const asNeighbour = { token: neighbour.token };
  errorShape(t, await request(app.url, `/emails/receiving/${emailId}`, asNeighbour), 404, 'not_found');
  const attachments = await request(app.url, `/emails/receiving/${emailId}/attachments`, asNeighbour);
  errorShape(t, attachments, 404, 'not_found');
  const other = new Resend(neighbour.token, { baseUrl: `${app.url}/api/v1` } as never);
  const sdk = await other.emails.receiving.get(emailId);
  t.match(sdk.error, { name: 'not_found', statusCode: 404 });
});
