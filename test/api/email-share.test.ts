import { Resend } from 'resend';
import t from 'tap';
import { movableClock } from '../helpers/clock.js';
import { errorShape, request } from '../helpers/http.js';
import { receiveMessage, receivingDomain } from '../helpers/received-mail.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/** POST/DELETE /emails/{id}/share and the page at /share/{token}. */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());

const HOUR = 3600_000;

async function sender(label: string) {
  const team = await app.createTeam(label, 'pro');
  const domain = `${label}-${Math.random().toString(36).slice(2, 6)}.test`;
  await markedVerifiedDomain(app, team.teamId, domain);
  const send = async (body: Record<string, unknown> = {}) => {
    const res = await request(app.url, '/emails', {
      method: 'POST',
      token: team.token,
      body: { from: `Acme <news@${domain}>`, to: 'reader@example.net', subject: 'Quarterly <news>', ...body },
    });
    if (res.status !== 200) throw new Error(`send failed: ${res.text}`);
    return res.body.id as string;
  };
  return { ...team, domain, send };
}

const share = (token: string, id: string, body?: unknown) =>
  request(app.url, `/emails/${id}/share`, { method: 'POST', token, body });
const open = (url: string) => request(new URL(url).origin, new URL(url).pathname);

t.test('share a sent email: { object, id, url }; the page shows it without a credential', async (t) => {
  const s = await sender('share');
  const id = await s.send({
    cc: 'copy@example.net',
    html: '<h1>Hello readers</h1><script>document.title="pwned"</script>',
    text: 'Hello in plain text',
    attachments: [{ filename: 'report.pdf', content: Buffer.from('%PDF-1.4').toString('base64') }],
  });
  const res = await share(s.token, id, {});
  t.equal(res.status, 200);
  t.same(Object.keys(res.body).sort(), ['expires_at', 'id', 'object', 'url']);
  t.ok(
    Math.abs(new Date(res.body.expires_at).getTime() - (clock.now().getTime() + 48 * HOUR)) < 5_000,
    'expires_at: the default 48 hours from now',
  );
  t.equal(res.body.object, 'email');
  t.equal(res.body.id, id);
  t.match(res.body.url, /^http:\/\/127\.0\.0\.1:\d+\/share\/[A-Za-z0-9_-]{43}$/);

  const page = await open(res.body.url);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  const csp = page.headers.get('content-security-policy') ?? '';
  t.match(csp, /default-src 'none'; img-src data:; style-src 'unsafe-inline'/, 'page CSP blocks scripts and fetches');
  t.equal(page.headers.get('cache-control'), 'no-store');
  t.match(page.text, '<title>Quarterly &lt;news&gt;</title>', 'subject escaped');
  t.match(page.text, 'news@');
  t.match(page.text, 'reader@example.net');
  t.match(page.text, 'copy@example.net');
  t.match(page.text, 'Hello in plain text');
  t.match(page.text, '<li>report.pdf</li>');
  t.match(page.text, /<iframe sandbox title="Email content"/, 'sandbox without allow-scripts');
  t.notMatch(page.text, /allow-scripts|allow-same-origin/);
  t.notMatch(page.text, '<script>', 'the email markup only appears escaped, inside srcdoc');
  t.match(page.text, '&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;');
  t.match(page.text, 'Content-Security-Policy', 'the frame carries its own policy too');

  // Two links of one email are different tokens; both open.
  const again = await share(s.token, id);
  t.equal(again.status, 200, 'no body at all is accepted');
  t.not(again.body.url, res.body.url);
  t.equal((await open(again.body.url)).status, 200);
});

t.test('expiry: default 48 hours, expires_in honoured, expired link is the 404 page', async (t) => {
  const s = await sender('expiry');
  const id = await s.send({ text: 'short lived' });
  const defaultLink = (await share(s.token, id)).body.url;
  const tenMinutesAnswer = (await share(s.token, id, { expires_in: '10m' })).body;
  t.ok(
    Math.abs(new Date(tenMinutesAnswer.expires_at).getTime() - (clock.now().getTime() + 10 * 60_000)) < 5_000,
    'expires_at names it',
  );
  const tenMinutes = tenMinutesAnswer.url;
  const twoHours = (await share(s.token, id, { expires_in: '2 hours' })).body.url;
  const oneDay = (await share(s.token, id, { expires_in: '1 day' })).body.url;
  const now = clock.now().getTime();
  clock.advanceTo(now + 11 * 60_000);
  const expired = await open(tenMinutes);
  t.equal(expired.status, 404, 'after 10 minutes the 10m link is gone');
  t.match(expired.headers.get('content-type'), /^text\/html/);
  t.match(expired.text, 'This link is not valid');
  t.notMatch(expired.text, 'short lived');
  t.equal((await open(twoHours)).status, 200);
  clock.advanceTo(now + 25 * HOUR);
  t.equal((await open(twoHours)).status, 404);
  t.equal((await open(oneDay)).status, 404);
  t.equal((await open(defaultLink)).status, 200, 'the default outlives a day');
  clock.advanceTo(now + 48 * HOUR + 60_000);
  t.equal((await open(defaultLink)).status, 404, 'and ends at 48 hours');
  const { jobs } = await import('../../scheduler/jobs/index.js');
  const purge = jobs.find((job) => job.name === 'purge-email-share-links')!;
  const { deleted } = (await purge.run(app.runtime.services)) as { deleted: number };
  t.ok(deleted >= 4, 'the retention job deletes expired links');
});

t.test('expires_in out of range or unreadable: 422 validation_error', async (t) => {
  const s = await sender('invalid');
  const id = await s.send({ text: 'x' });
  for (const expires_in of ['49h', '3 days', '30s', '0m', 'soon', '10 fortnights', '']) {
    const res = await share(s.token, id, { expires_in });
    const body = errorShape(t, res, 422, 'validation_error');
    t.equal(body.errors?.[0]?.path, 'expires_in', `${JSON.stringify(expires_in)} names the field`);
  }
  t.equal((await share(s.token, id, { expires_in: '48h' })).status, 200, '48h is the maximum, allowed');
  t.equal((await share(s.token, id, { expires_in: '1m' })).status, 200, 'one minute is the minimum');
  errorShape(t, await share(s.token, id, { expires_in: 5 }), 400, 'validation_error');
  errorShape(t, await share(s.token, id, { expires: '1h' }), 400, 'validation_error');
});

t.test('unknown email and another team: 404 not_found; bad token: 404 page', async (t) => {
  const s = await sender('missing');
  const other = await sender('other');
  const theirs = await other.send({ text: 'private' });
  errorShape(t, await share(s.token, theirs), 404, 'not_found');
  errorShape(t, await share(s.token, '0190f0a0-0000-7000-8000-000000000000'), 404, 'not_found');
  errorShape(
    t,
    await request(app.url, `/emails/${theirs}/share`, { method: 'DELETE', token: s.token }),
    404,
    'not_found',
  );
  for (const path of ['/share/' + 'A'.repeat(43), '/share/short', '/share/' + 'x'.repeat(100)]) {
    const page = await request(app.url, path);
    t.equal(page.status, 404, path);
    t.match(page.text, 'This link is not valid');
  }
  errorShape(t, await request(app.url, `/emails/${theirs}/share`, { method: 'POST' }), 401, 'missing_api_key');
});

t.test('DELETE revokes every live link of the email: their pages are 404', async (t) => {
  const s = await sender('revoke');
  const id = await s.send({ text: 'revoke me' });
  const keep = await s.send({ text: 'other email' });
  const a = (await share(s.token, id)).body.url;
  const b = (await share(s.token, id, { expires_in: '1h' })).body.url;
  const untouched = (await share(s.token, keep)).body.url;
  const res = await request(app.url, `/emails/${id}/share`, { method: 'DELETE', token: s.token });
  t.equal(res.status, 200);
  t.same(res.body, { object: 'email', id, revoked: 2 });
  t.equal((await open(a)).status, 404);
  t.equal((await open(b)).status, 404);
  t.equal((await open(untouched)).status, 200, 'links of other emails stay');
  const fresh = (await share(s.token, id)).body.url;
  t.equal((await open(fresh)).status, 200, 'a new link works after a revoke');
  t.same((await request(app.url, `/emails/${id}/share`, { method: 'DELETE', token: s.token })).body.revoked, 1);
});

t.test('received emails: a full_access key shares them; a sending key cannot', async (t) => {
  const s = await sender('inbox');
  const domain = await receivingDomain(app, s.teamId);
  const raw =
    `From: Partner <partner@sender.test>\r\nTo: in@${domain}\r\nSubject: Inbound hello\r\n` +
    'Content-Type: text/html; charset=utf-8\r\n\r\n<p>Received body</p>\r\n';
  const received = (await receiveMessage(app, { from: 'partner@sender.test', to: [`in@${domain}`], raw })).received[0]!
    .id;
  const res = await share(s.token, received, { expires_in: '1 hour' });
  t.equal(res.status, 200);
  t.same(res.body.id, received);
  const page = await open(res.body.url);
  t.equal(page.status, 200);
  t.match(page.text, '<title>Inbound hello</title>');
  t.match(page.text, 'partner@sender.test');
  t.match(page.text, '&lt;p&gt;Received body&lt;/p&gt;');

  const sendingKey = await app.runtime.services.apiKeys.create(s.teamId, {
    name: 'sender',
    permission: 'sending_access',
  });
  errorShape(t, await share(sendingKey.token, received), 404, 'not_found');
  const sent = await s.send({ text: 'mine' });
  t.equal((await share(sendingKey.token, sent)).status, 200, 'a sending key shares sent emails');
});

t.test('the resend SDK: emails.share', async (t) => {
  const s = await sender('sdk');
  const id = await s.send({ html: '<p>From the SDK</p>' });
  const resend = new Resend(s.token, { baseUrl: `${app.url}/api/v1` } as never);
  const { data, error } = await resend.emails.share(id, { expiresIn: '2 hours' });
  t.equal(error, null);
  t.match(data, { object: 'email', id, url: /\/share\// });
  t.equal((await open(data!.url)).status, 200);
  const plain = await resend.emails.share(id);
  t.equal(plain.error, null, 'no options: the default lifetime');
  const refused = await resend.emails.share(id, { expiresIn: '3 days' });
  t.match(refused.error, { name: 'validation_error', statusCode: 422 });
});
