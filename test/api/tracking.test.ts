import { request as httpRequest } from 'node:http';
import t from 'tap';
import { request } from '../helpers/http.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { startTestApp } from '../helpers/test-app.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';

const TRACKING_HOST = 'track.mailroom.test';
const dns = await TestDnsServer.start();
const app = await startTestApp({
  env: { MAILROOM_DNS_SERVERS: dns.address },
  config: { tracking: { host: TRACKING_HOST, scheme: 'http' } },
});
t.teardown(async () => {
  await app.close();
  await dns.close();
});

/** A team out of the sandbox with a verified domain; with tracking, its CNAME is published first. */
async function sender(label: string, tracking: boolean) {
  const team = await app.createTeam(label, 'unlimited');
  await app.runtime.services.teams.setTier(team.teamId, 2);
  const domain = `${label}.test`;
  if (tracking) dns.add({ type: 'CNAME', name: `links.${domain}`, value: TRACKING_HOST });
  const body = tracking ? { open_tracking: true, click_tracking: true } : {};
  await addVerifiedDomain(app, dns, team.token, domain, body);
  return { ...team, domain };
}

/** A GET to the API's listener with any Host header; the body as bytes. */
function get(
  path: string,
  host: string,
  userAgent?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host };
    if (userAgent) headers['user-agent'] = userAgent;
    const req = httpRequest(`${app.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The decoded body of the MIME part of one content type. */
function part(mime: string, type: string): string | undefined {
  const found = mime.split(/\r?\n--/).find((p) => new RegExp(`^Content-Type: ${type}`, 'im').test(p));
  if (!found) return undefined;
  const [head = '', ...rest] = found.split(/\r?\n\r?\n/);
  const body = rest.join('\n\n').replace(/\r?\n$/, '');
  if (/Content-Transfer-Encoding: quoted-printable/i.test(head)) {
    const bytes = body.replace(/=\r?\n/g, '').replace(/\r\n/g, '\n');
    return Buffer.from(
      bytes.replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  }
  if (/Content-Transfer-Encoding: base64/i.test(head)) return Buffer.from(body, 'base64').toString('utf8');
  return body.replace(/\r\n/g, '\n');
}

async function sentHtml(teamId: string, id: string) {
  const { email } = await app.runtime.services.emails.get(teamId, id);
  const mime = (await app.runtime.services.emails.mime(email))!.toString('utf8');
  return { html: part(mime, 'text/html')!, text: part(mime, 'text/plain')! };
}

const lastEvent = async (token: string, id: string) =>
  (await request(app.url, `/emails/${id}`, { token })).body.last_event as string;
const eventsOf = async (teamId: string, type: 'email.opened' | 'email.clicked', emailId: string) =>
  (await app.runtime.services.eventLog.list(teamId, { type })).filter((e) => e.data.email_id === emailId);

const HTML = [
  '<html><body>',
  '<p>Our <a href="https://shop.example/sale?a=1&amp;b=2">sale</a> and',
  " <a class='x' href='http://shop.example/plain'>plain</a>.</p>",
  '<p><a href="mailto:help@acme.example">mail us</a> <a href="#top">top</a>',
  ' <a href="https://shop.example/private" data-no-track>private</a></p>',
  '</body></html>',
].join('\n');
const TEXT = 'Our sale: https://shop.example/sale?a=1&b=2';

t.test('with tracking on, links are rewritten, the pixel added, the text part left alone', async (t) => {
  const s = await sender('tracked', true);
  const sent = await request(app.url, '/emails', {
    method: 'POST',
    token: s.token,
    body: { from: `hi@${s.domain}`, to: 'r@example.net', subject: 'Sale', html: HTML, text: TEXT },
  });
  t.equal(sent.status, 200);
  const id = sent.body.id as string;
  const { html, text } = await sentHtml(s.teamId, id);
  t.equal(text, TEXT, 'the text part is unchanged');
  const clickTokens = [...html.matchAll(/href="http:\/\/links\.tracked\.test\/c\/([A-Za-z0-9_-]+)"/g)].map(
    (m) => m[1]!,
  );
  const singleQuoted = [...html.matchAll(/href='http:\/\/links\.tracked\.test\/c\/([A-Za-z0-9_-]+)'/g)].map(
    (m) => m[1]!,
  );
  t.equal(clickTokens.length, 1, 'the double-quoted link');
  t.equal(singleQuoted.length, 1, 'the single-quoted link, quoting kept');
  t.match(html, '<a href="mailto:help@acme.example">mail us</a> <a href="#top">top</a>');
  t.match(html, '<a href="https://shop.example/private" data-no-track>private</a>');
  const pixel =
    /<img src="http:\/\/links\.tracked\.test\/o\/([A-Za-z0-9_-]+)" width="1" height="1" alt="" style="display:none"><\/body>/.exec(
      html,
    );
  t.ok(pixel, 'the pixel, before </body>');
  const stored = (await request(app.url, `/emails/${id}`, { token: s.token })).body;
  t.equal(stored.html, HTML, 'the API returns the HTML as sent by the client');

  await t.test('the pixel records email.opened and answers a transparent GIF', async (t) => {
    const res = await get(`/o/${pixel![1]}`, 'links.tracked.test', 'MailClient/2.0');
    t.equal(res.status, 200);
    t.equal(res.headers['content-type'], 'image/gif');
    t.equal(res.headers['cache-control'], 'no-store');
    t.equal(res.body.length, 43);
    t.equal(res.body.subarray(0, 6).toString('latin1'), 'GIF89a');
    const [opened] = await eventsOf(s.teamId, 'email.opened', id);
    t.match(opened?.data, {
      email_id: id,
      to: ['r@example.net'],
      subject: 'Sale',
      open: { ipAddress: '127.0.0.1', userAgent: 'MailClient/2.0', timestamp: String },
    });
    t.ok(
      Math.abs(Date.parse((opened!.data.open as { timestamp: string }).timestamp) - Date.now()) < 60_000,
      'timestamp is now',
    );
    t.equal(await lastEvent(s.token, id), 'opened');
  });

  await t.test('a click records email.clicked and redirects to the original link', async (t) => {
    const res = await get(`/c/${clickTokens[0]}`, 'links.tracked.test', 'Browser/1.0');
    t.equal(res.status, 302);
    t.equal(
      res.headers.location,
      'https://shop.example/sale?a=1&b=2',
      'entities decoded: the URL the browser would have followed',
    );
    t.equal(res.headers['cache-control'], 'no-store');
    const [clicked] = await eventsOf(s.teamId, 'email.clicked', id);
    t.match(clicked?.data, {
      email_id: id,
      click: {
        ipAddress: '127.0.0.1',
        userAgent: 'Browser/1.0',
        link: 'https://shop.example/sale?a=1&b=2',
        timestamp: String,
      },
    });
    t.equal(await lastEvent(s.token, id), 'clicked');
    t.equal((await get(`/c/${singleQuoted[0]}`, 'links.tracked.test')).headers.location, 'http://shop.example/plain');
    const noAgent = await eventsOf(s.teamId, 'email.clicked', id);
    t.equal(
      (noAgent[0]!.data.click as { userAgent: unknown }).userAgent,
      null,
      'no User-Agent: null, and no 403 as the API would answer',
    );
  });

  await t.test('the configured tracking host serves the same endpoints', async (t) => {
    t.equal((await get(`/o/${pixel![1]}`, `${TRACKING_HOST}:443`)).status, 200, 'port ignored');
    t.equal((await get(`/c/${clickTokens[0]}`, TRACKING_HOST)).status, 302);
  });

  await t.test(
    'a tampered token redirects nowhere and records nothing; links not in the message cannot be made',
    async (t) => {
      const clicksBefore = (await eventsOf(s.teamId, 'email.clicked', id)).length;
      const opensBefore = (await eventsOf(s.teamId, 'email.opened', id)).length;
      const token = clickTokens[0]!;
      const tampered = token.slice(0, 20) + (token[20] === 'A' ? 'B' : 'A') + token.slice(21);
      const res = await get(`/c/${tampered}`, 'links.tracked.test');
      t.equal(res.status, 404);
      t.equal(res.headers.location, undefined);
      // Another link spliced into a real token's bytes, keeping its MAC.
      const bytes = Buffer.from(token, 'base64url');
      const spliced = Buffer.concat([
        bytes.subarray(0, 17),
        Buffer.from('https://evil.example/'),
        bytes.subarray(bytes.length - 16),
      ]).toString('base64url');
      t.equal((await get(`/c/${spliced}`, 'links.tracked.test')).status, 404);
      t.equal((await get(`/c/${pixel![1]}`, 'links.tracked.test')).status, 404, 'an open token is not a click token');
      const badOpen = await get(`/o/${tampered}`, 'links.tracked.test');
      t.equal(badOpen.status, 200, 'a bad pixel token still gets the GIF');
      t.equal(badOpen.headers['content-type'], 'image/gif');
      t.equal((await eventsOf(s.teamId, 'email.clicked', id)).length, clicksBefore, 'no click recorded');
      t.equal((await eventsOf(s.teamId, 'email.opened', id)).length, opensBefore, 'no open recorded');
      const targets = new Set<string>();
      for (const tok of [...clickTokens, ...singleQuoted])
        targets.add(String((await get(`/c/${tok}`, 'links.tracked.test')).headers.location));
      t.same(
        [...targets].sort(),
        ['http://shop.example/plain', 'https://shop.example/sale?a=1&b=2'],
        'the only targets are the message links',
      );
    },
  );

  await t.test('anything else on a tracking host is 404 and never reaches the API', async (t) => {
    for (const [path, host] of [
      ['/emails', 'links.tracked.test'],
      ['/', TRACKING_HOST],
      ['/o/', 'links.tracked.test'],
      ['/c/a/b', 'links.tracked.test'],
    ] as const) {
      const res = await get(path, host, 'x/1');
      t.equal(res.status, 404, `${host}${path}`);
      t.match(res.headers['content-type'], /text\/plain/);
    }
    const apiCall = await request(app.url, `/emails/${id}`, {
      token: s.token,
      headers: { host: 'links.tracked.test' },
    });
    t.equal(apiCall.status, 404, 'a key on a tracking host opens nothing');
    const post = await request(app.url, '/o/x', { method: 'POST', headers: { host: 'links.tracked.test' } });
    t.equal(post.status, 404);
  });

  await t.test('the API host is the API: tracking paths there are unknown routes', async (t) => {
    t.equal((await request(app.url, `/emails/${id}`, { token: s.token })).status, 200);
    const res = await request(app.url, `/o/${pixel![1]}`);
    t.equal(res.status, 404);
    t.equal(res.body.name, 'not_found', 'the API error body');
  });

  await t.test('a deleted email: the link redirects nowhere, the pixel still answers', async (t) => {
    await app.runtime.db.knex('email_attachments').where({ email_id: id }).delete();
    await app.runtime.db.knex('emails').where({ id }).delete();
    t.equal((await get(`/c/${clickTokens[0]}`, 'links.tracked.test')).status, 404);
    t.equal((await get(`/o/${pixel![1]}`, 'links.tracked.test')).status, 200);
  });
});

t.test('a link with non-ASCII characters redirects percent-encoded, as a browser would follow it', async (t) => {
  const s = await sender('unicode', true);
  const html = '<a href="https://shop.example/straße?q=ü&amp;r=a%20b">x</a>';
  const sent = await request(app.url, '/emails', {
    method: 'POST',
    token: s.token,
    body: { from: `hi@${s.domain}`, to: 'r@example.net', subject: 'U', html },
  });
  const token = /\/c\/([A-Za-z0-9_-]+)/.exec((await sentHtml(s.teamId, sent.body.id)).html)![1]!;
  const res = await get(`/c/${token}`, 'links.unicode.test');
  t.equal(res.status, 302);
  t.equal(res.headers.location, 'https://shop.example/stra%C3%9Fe?q=%C3%BC&r=a%20b');
  const [clicked] = await eventsOf(s.teamId, 'email.clicked', sent.body.id);
  t.equal(
    (clicked!.data.click as { link: string }).link,
    'https://shop.example/straße?q=ü&r=a%20b',
    'the event has the link as written',
  );
});

t.test('with tracking off the HTML is sent unchanged', async (t) => {
  const s = await sender('untracked', false);
  const sent = await request(app.url, '/emails', {
    method: 'POST',
    token: s.token,
    body: { from: `hi@${s.domain}`, to: 'r@example.net', subject: 'Plain', html: HTML, text: TEXT },
  });
  t.equal(sent.status, 200);
  const { html, text } = await sentHtml(s.teamId, sent.body.id);
  t.equal(html, HTML);
  t.equal(text, TEXT);
});

t.test('open tracking alone adds the pixel and leaves links; text-only mail is untouched', async (t) => {
  const s = await sender('opensonly', true);
  const domainId = (await request(app.url, '/domains', { token: s.token })).body.data[0].id as string;
  t.equal(
    (
      await request(app.url, `/domains/${domainId}`, {
        method: 'PATCH',
        token: s.token,
        body: { click_tracking: false },
      })
    ).status,
    200,
  );
  const sent = await request(app.url, '/emails', {
    method: 'POST',
    token: s.token,
    body: { from: `hi@${s.domain}`, to: 'r@example.net', subject: 'O', html: HTML },
  });
  const { html } = await sentHtml(s.teamId, sent.body.id);
  t.match(html, '<a href="https://shop.example/sale?a=1&amp;b=2">sale</a>');
  t.match(html, /<img src="http:\/\/links\.opensonly\.test\/o\/[A-Za-z0-9_-]+"/);
  const textOnly = await request(app.url, '/emails', {
    method: 'POST',
    token: s.token,
    body: { from: `hi@${s.domain}`, to: 'r@example.net', subject: 'T', text: TEXT },
  });
  t.equal(textOnly.status, 200);
  const { email } = await app.runtime.services.emails.get(s.teamId, textOnly.body.id);
  t.notMatch((await app.runtime.services.emails.mime(email))!.toString('utf8'), /\/o\//);
});

t.test('an unverified domain does not make its tracking host one', async (t) => {
  const team = await app.createTeam('pending', 'unlimited');
  dns.add({ type: 'SOA', name: 'pending.test' });
  t.equal(
    (
      await request(app.url, '/domains', {
        method: 'POST',
        token: team.token,
        body: { name: 'pending.test', open_tracking: true },
      })
    ).status,
    201,
  );
  const res = await request(app.url, '/o/AAAA', { headers: { host: 'links.pending.test' } });
  t.equal(res.status, 404);
  t.equal(res.body.name, 'not_found', 'answered by the API');
});
