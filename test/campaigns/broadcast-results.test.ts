import { request as httpRequest } from 'node:http';
import nodemailer from 'nodemailer';
import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { movableClock } from '../helpers/clock.js';
import { startInboundServer } from '../../inbound/inbound-server.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';

/**
 * A broadcast's results from real outcomes: delivery to a loopback sink, a permanent bounce
 * (the sink refuses one recipient), a suppressed address, opens and clicks through the tracking
 * host, a complaint, and an unsubscribe through the email's own one-click link. Read back with
 * the resend SDK's broadcasts.recipients and broadcasts.clickedLinks, and GET /emails/metrics.
 */
const TRACKING_HOST = 'track.mailroom.test';
const clock = movableClock();
const fx = await startMtaFixture({
  clock,
  sinkHosts: ['127.0.0.10'],
  config: { tracking: { host: TRACKING_HOST, scheme: 'http' } },
});
t.teardown(() => fx.close());
fx.dns.add(
  { type: 'MX', name: 'dest.test', exchange: 'mx1.dest.test', priority: 10 },
  { type: 'A', name: 'mx1.dest.test', address: '127.0.0.10' },
);
const [sink] = fx.sinks as [NonNullable<(typeof fx.sinks)[0]>];
sink.faults.push({ stage: 'rcpt', code: 550, message: '5.1.1 No such user', recipient: 'bob@dest.test' });
const call = (method: string, path: string, body?: unknown) =>
  request(fx.app.url, path, { method, token: fx.token, body });
const resend = new Resend(fx.token, { baseUrl: `${fx.app.url}/api/v1` } as never);

/** A GET to the API's listener with the tracking subdomain as Host, as a mail client fetches it. */
function fetchTracked(url: string): Promise<number> {
  const parsed = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${fx.app.url}${parsed.pathname}${parsed.search}`,
      { headers: { host: parsed.host } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The decoded HTML part of a message at the sink. */
function htmlOf(raw: string): string {
  const part = raw.split(/\r?\n--/).find((p) => /^Content-Type: text\/html/im.test(p))!;
  const [head = '', ...rest] = part.split(/\r?\n\r?\n/);
  const body = rest.join('\n\n');
  if (/quoted-printable/i.test(head))
    return Buffer.from(
      body
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  if (/base64/i.test(head)) return Buffer.from(body, 'base64').toString('utf8');
  return body;
}

const emails = ['ann', 'bob', 'cat', 'dan', 'eve', 'fay'].map((name) => `${name}@dest.test`);
let broadcastId = '';
const sentTo = new Map<string, string>();

t.before(async () => {
  fx.dns.add({ type: 'CNAME', name: 'links.sender.test', value: TRACKING_HOST });
  const tracking = await call('PATCH', `/domains/${fx.domainId}`, { open_tracking: true, click_tracking: true });
  t.equal(tracking.status, 200, tracking.text);
  await call('POST', `/domains/${fx.domainId}/verify`);
  t.equal((await call('GET', `/domains/${fx.domainId}`)).body.status, 'verified', 'tracking on, still verified');
  await call('PATCH', '/team', {
    sender_name: 'MTA',
    postal_address: { line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' },
  });
  for (const email of emails) t.equal((await call('POST', '/contacts', { email })).status, 201);
  t.equal((await call('POST', '/suppressions', { email: 'cat@dest.test' })).status, 201, 'cat is suppressed');
  const segment = (
    await call('POST', '/segments', {
      name: 'Dest',
      filter: { all: [{ field: 'email', op: 'contains', value: '@dest.test' }] },
    })
  ).body.id as string;
  const created = await call('POST', '/broadcasts', {
    name: 'November sale',
    segment_id: segment,
    from: 'News <news@sender.test>',
    subject: 'Sale',
    html: '<p><a href="https://shop.example/sale">Sale</a> <a href="https://shop.example/faq">FAQ</a></p>',
    send: true,
  });
  t.equal(created.status, 201, created.text);
  broadcastId = created.body.id;
  t.equal((await fx.app.runtime.services.broadcastFanOut.runDue()).emails, 5, 'five emails; cat suppressed');
  await fx.waitFor(async () => sink.messages.length >= 4, 'four messages at the sink (bob refused)');
  for (const message of sink.messages) sentTo.set(message.to[0]!, message.data.toString('utf8'));
  const rows = await fx.app.runtime.db
    .knex('broadcast_recipients')
    .where({ broadcast_id: broadcastId })
    .whereNotNull('email_id')
    .select('email', 'email_id');
  for (const row of rows as Array<{ email: string; email_id: string }>)
    await fx.waitForEvents(row.email_id, [row.email === 'bob@dest.test' ? 'email.bounced' : 'email.delivered']);
});

t.test('opens, clicks, a complaint and a one-click unsubscribe reach the results', async (t) => {
  const danHtml = htmlOf(sentTo.get('dan@dest.test')!);
  const links = [...danHtml.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll('&amp;', '&'));
  const tracked = links.filter((href) => href.startsWith('http://links.sender.test/'));
  t.equal(tracked.length, 3, 'two tracked links and the footer unsubscribe');
  const [sale, faq] = tracked;
  const pixel = /<img[^>]+src="([^"]+)"/.exec(danHtml)![1]!.replaceAll('&amp;', '&');
  t.equal(await fetchTracked(pixel), 200, 'dan opens');
  t.equal(await fetchTracked(pixel), 200, 'dan opens again');
  t.equal(await fetchTracked(sale!), 302, 'dan clicks Sale');
  t.equal(await fetchTracked(sale!), 302, 'dan clicks Sale again');
  t.equal(await fetchTracked(faq!), 302, 'dan clicks FAQ');
  const annSale = [...htmlOf(sentTo.get('ann@dest.test')!).matchAll(/href="([^"]+)"/g)][0]![1]!.replaceAll(
    '&amp;',
    '&',
  );
  t.equal(await fetchTracked(annSale), 302, 'ann clicks Sale');

  const eveUrl = /List-Unsubscribe:\s+<([^>]+)>/.exec(sentTo.get('eve@dest.test')!)![1]!;
  const oneClick = await request(fx.app.url, new URL(eveUrl).pathname, {
    method: 'POST',
    rawBody: 'List-Unsubscribe=One-Click',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    userAgent: null,
  });
  t.equal(oneClick.status, 200, 'eve unsubscribes with the one-click POST');

  // Dan's mail client sends to the mailto URI of List-Unsubscribe, through the inbound MX.
  const danHeader = /List-Unsubscribe:\s+([^\r\n]+(?:\r?\n[ \t][^\r\n]+)*)/.exec(sentTo.get('dan@dest.test')!)![1]!;
  const mailto = /<mailto:([^?>]+)\?subject=unsubscribe>/.exec(danHeader.replace(/\r?\n[ \t]+/g, ' '))?.[1];
  t.match(
    mailto,
    /^u\+[a-z2-7]{60}@[a-z0-9-]+\.sender\.test$/,
    'List-Unsubscribe also names a mailto at the return path',
  );
  const mx = await startInboundServer(fx.app.runtime);
  t.teardown(() => mx.close());
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: mx.port, secure: false, ignoreTLS: true });
  const forged = mailto!.replace(/^u\+(.)/, (_, c: string) => `u+${c === 'a' ? 'b' : 'a'}`);
  await transport.sendMail({ from: 'ann@dest.test', to: forged, subject: 'unsubscribe', text: 'forged' });
  t.equal(
    (await call('GET', '/contacts/ann@dest.test')).body.unsubscribed,
    false,
    'a forged token unsubscribes no one',
  );
  await t.rejects(
    transport.sendMail({ from: 'dan@dest.test', to: mailto!.replace('.sender.test', '.elsewhere.test'), text: 'x' }),
    /550/,
    'the address at a host that is no return path is refused at RCPT',
  );
  await transport.sendMail({ from: 'dan@dest.test', to: mailto!, subject: 'unsubscribe', text: 'unsubscribe' });
  t.equal((await call('GET', '/contacts/dan@dest.test')).body.unsubscribed, true, 'the mailto unsubscribed dan');
  const consent = await fx.app.runtime.db.knex('consent_records').where({ source: 'mailto' }).select('value');
  t.same(consent, [{ value: 'unsubscribed' }], 'with a consent record from the mailto');

  const fayEmailId = (await fx.app.runtime.db
    .knex('broadcast_recipients')
    .where({ broadcast_id: broadcastId, email: 'fay@dest.test' })
    .first('email_id')) as { email_id: string };
  const fayEmail = (await fx.app.runtime.services.lateOutcomes.findEmail(fayEmailId.email_id))!;
  await fx.app.runtime.db.knex.transaction((trx) =>
    fx.app.runtime.services.lateOutcomes.complained(trx, fayEmail, 'fay@dest.test'),
  );
  const events = await fx.waitForEvents(fayEmail.id, ['email.complained']);
  t.equal(events.at(-1)!.data.broadcast_id, broadcastId, 'email.* events of a broadcast carry broadcast_id');
});

t.test('broadcasts.recipients by every type (resend SDK)', async (t) => {
  const recipients = async (type: string, extra: Record<string, unknown> = {}) => {
    const answer = await resend.broadcasts.recipients(broadcastId, { type, ...extra } as never);
    t.equal(answer.error, null, `${type}: no error`);
    return answer.data!.data as Array<Record<string, any>>;
  };
  const emailsOf = (rows: Array<Record<string, any>>) => rows.map((r) => r.email).sort();
  t.same(
    emailsOf(await recipients('sent')),
    ['ann', 'bob', 'dan', 'eve', 'fay'].map((n) => `${n}@dest.test`),
  );
  t.same(
    emailsOf(await recipients('delivered')),
    ['ann', 'dan', 'eve', 'fay'].map((n) => `${n}@dest.test`),
  );
  const bounced = await recipients('bounced');
  t.same(
    bounced.map((r) => [r.email, r.bounce_type]),
    [['bob@dest.test', 'permanent']],
  );
  t.same(
    await recipients('bounced', { bounceType: 'permanent' }),
    bounced,
    'bounce_type filter keeps the permanent one',
  );
  t.same(await recipients('bounced', { bounceType: 'transient' }), [], 'and no transient ones');
  const opened = await recipients('opened');
  t.same(
    opened.map((r) => [r.email, r.count]),
    [['dan@dest.test', 2]],
    'opens counted per recipient',
  );
  const clicked = await recipients('clicked');
  const byEmail = new Map(clicked.map((r) => [r.email, r]));
  t.equal(byEmail.get('dan@dest.test')!.count, 3);
  t.same(byEmail.get('dan@dest.test')!.clicked_links, [
    { url: 'https://shop.example/sale', clicks: 2 },
    { url: 'https://shop.example/faq', clicks: 1 },
  ]);
  t.same(byEmail.get('ann@dest.test')!.clicked_links, [{ url: 'https://shop.example/sale', clicks: 1 }]);
  t.same(emailsOf(await recipients('complained')), ['fay@dest.test']);
  const unsubscribed = await recipients('unsubscribed');
  t.same(
    emailsOf(unsubscribed),
    ['dan@dest.test', 'eve@dest.test'],
    'the one-click and the mailto unsubscribes are attributed to the broadcast',
  );
  t.same(emailsOf(await recipients('suppressed')), ['cat@dest.test'], 'the suppressed address is listed');
  const eve = unsubscribed[0]!;
  t.same(Object.keys(eve).sort(), ['contact_id', 'email', 'id'], 'no per-type fields where the type has none');
  t.match(eve.contact_id, /^[0-9a-f-]{36}$/);
  t.same(emailsOf(await recipients('sent', { email: 'DAN@dest.test' })), ['dan@dest.test'], 'email filter');
});

t.test('recipients page with cursors; a deleted contact has contact_id null', async (t) => {
  const all = (await call('GET', `/broadcasts/${broadcastId}/recipients?type=sent`)).body.data as Array<{ id: string }>;
  t.equal(all.length, 5);
  const first = await call('GET', `/broadcasts/${broadcastId}/recipients?type=sent&limit=2`);
  t.equal(first.body.has_more, true);
  t.same(first.body.data, all.slice(0, 2));
  const next = await call('GET', `/broadcasts/${broadcastId}/recipients?type=sent&limit=2&after=${all[1]!.id}`);
  t.same(next.body.data, all.slice(2, 4));
  const back = await call('GET', `/broadcasts/${broadcastId}/recipients?type=sent&limit=2&before=${all[2]!.id}`);
  t.same(back.body.data, all.slice(0, 2));
  t.equal((await call('DELETE', '/contacts/ann@dest.test')).status, 200);
  const ann = (await call('GET', `/broadcasts/${broadcastId}/recipients?type=delivered&email=ann@dest.test`)).body
    .data[0];
  t.equal(ann.contact_id, null, 'the row stays; its contact is gone');
});

t.test('broadcasts.clickedLinks: totals and unique clicks per link', async (t) => {
  const answer = await resend.broadcasts.clickedLinks(broadcastId);
  t.equal(answer.error, null);
  const links = answer.data!.data.map(({ url, clicks, unique_clicks }) => ({ url, clicks, unique_clicks }));
  t.same(
    links.sort((a, b) => a.url.localeCompare(b.url)),
    [
      { url: 'https://shop.example/faq', clicks: 1, unique_clicks: 1 },
      { url: 'https://shop.example/sale', clicks: 3, unique_clicks: 2 },
    ],
  );
  const page = await call('GET', `/broadcasts/${broadcastId}/clicked-links?limit=1`);
  t.equal(page.body.has_more, true);
  const rest = await call('GET', `/broadcasts/${broadcastId}/clicked-links?limit=1&after=${page.body.data[0].id}`);
  t.equal(rest.body.has_more, false);
  t.equal(rest.body.data.length, 1);
  t.not(rest.body.data[0].url, page.body.data[0].url, 'the second page holds the other link');
});

t.test('GET /emails/metrics?broadcast_id= counts the broadcast', async (t) => {
  // Reports end at the last completed minute: the clock moves past this one instead of waiting.
  const completed = Math.floor(clock.now().getTime() / 60_000) * 60_000 + 60_000;
  clock.advanceTo(completed + 200);
  await fx.app.runtime.services.metrics.rollUp({ until: new Date(completed) });
  const metrics = await call(
    'GET',
    `/emails/metrics?broadcast_id=${broadcastId}&metrics=delivered,bounced,opened,clicked,complained`,
  );
  t.equal(metrics.status, 200, metrics.text);
  t.match(metrics.body.totals, { delivered: 4, bounced: 1, opened: 2, clicked: 4, complained: 1 });
  const byBroadcast = await call('GET', '/emails/metrics?dimensions=broadcast&metrics=delivered');
  t.equal(byBroadcast.status, 200, byBroadcast.text);
  t.match(byBroadcast.body.data, [{ broadcast_id: broadcastId, broadcast_name: 'November sale', delivered: 4 }]);
});

t.test('refusals', async (t) => {
  errorShape(t, await call('GET', `/broadcasts/${broadcastId}/recipients`), 422, 'missing_required_parameter');
  errorShape(t, await call('GET', `/broadcasts/${broadcastId}/recipients?type=read`), 422, 'invalid_parameter');
  errorShape(
    t,
    await call('GET', `/broadcasts/${broadcastId}/recipients?type=sent&bounce_type=permanent`),
    422,
    'invalid_parameter',
  );
  errorShape(
    t,
    await call('GET', `/broadcasts/${broadcastId}/recipients?type=bounced&bounce_type=soft`),
    422,
    'invalid_parameter',
  );
  errorShape(
    t,
    await call('GET', `/broadcasts/${broadcastId}/recipients?type=sent&limit=101`),
    422,
    'invalid_parameter',
  );
  errorShape(t, await call('GET', `/broadcasts/${broadcastId}/recipients?type=sent&after=x`), 422, 'invalid_parameter');
  errorShape(t, await call('GET', `/broadcasts/${broadcastId}/clicked-links?limit=0`), 422, 'invalid_parameter');
  const missing = '0199a0a0-0000-7000-8000-000000000009';
  errorShape(t, await call('GET', `/broadcasts/${missing}/recipients?type=sent`), 404, 'not_found');
  errorShape(t, await call('GET', `/broadcasts/${missing}/clicked-links`), 404, 'not_found');
  const other = await fx.app.createTeam('Other', 'unlimited');
  const foreign = await request(fx.app.url, `/broadcasts/${broadcastId}/recipients?type=sent`, { token: other.token });
  errorShape(t, foreign, 404, 'not_found');
});
