import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { startTestApp } from '../helpers/test-app.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';

const dns = await TestDnsServer.start();
const app = await startTestApp({ env: { MAILROOM_DNS_SERVERS: dns.address } });
t.teardown(async () => {
  await app.close();
  await dns.close();
});

/** A team out of the sandbox (tier 2) with a verified domain `<label>.test`. */
async function sender(label: string, plan = 'unlimited') {
  const team = await app.createTeam(label, plan);
  await app.runtime.services.teams.setTier(team.teamId, 2);
  const domainId = await addVerifiedDomain(app, dns, team.token, `${label}.test`);
  return { ...team, domainId, domain: `${label}.test` };
}
const send = (token: string, body: unknown, headers: Record<string, string> = {}) =>
  request(app.url, '/emails', { method: 'POST', token, body, headers });

t.test('accepts a message: 200 { id }, recorded with its MIME, retrievable', async (t) => {
  const s = await sender('accept');
  const res = await send(s.token, {
    from: 'Acme <hello@accept.test>',
    to: ['a@example.net', 'B <b@example.net>'],
    cc: 'c@example.net',
    bcc: ['secret@example.net'],
    reply_to: 'support@accept.test',
    subject: 'Hello there',
    html: '<p>Hello</p>',
    text: 'Hello',
    headers: { 'X-Entity-Ref-ID': '123' },
    tags: [{ name: 'category', value: 'welcome' }],
    attachments: [{ filename: 'note.txt', content: Buffer.from('attached').toString('base64') }],
  });
  t.equal(res.status, 200);
  t.same(Object.keys(res.body), ['id']);
  const got = (await request(app.url, `/emails/${res.body.id}`, { token: s.token })).body;
  t.match(got, {
    object: 'email',
    id: res.body.id,
    from: 'Acme <hello@accept.test>',
    to: ['a@example.net', 'B <b@example.net>'],
    cc: ['c@example.net'],
    bcc: ['secret@example.net'],
    reply_to: ['support@accept.test'],
    subject: 'Hello there',
    html: '<p>Hello</p>',
    text: 'Hello',
    last_event: 'queued',
    scheduled_at: null,
    tags: [{ name: 'category', value: 'welcome' }],
    message_id: `<${res.body.id}@accept.test>`,
  });
  const { email } = await app.runtime.services.emails.get(s.teamId, res.body.id);
  const mime = (await app.runtime.services.emails.mime(email))!.toString('utf8');
  t.match(mime, new RegExp(`Message-ID: <${res.body.id}@accept.test>`));
  t.match(mime, /X-Entity-Ref-ID: 123/);
  t.match(mime, /filename=note.txt/);
  t.notMatch(mime, /^Bcc:/im, 'bcc never becomes a header');
  t.notMatch(mime, /secret@example.net/);
  const log = (await request(app.url, '/logs?search=/emails', { token: s.token })).body.data.find(
    (l: { endpoint: string; method: string }) => l.endpoint === '/emails' && l.method === 'POST',
  );
  t.equal(
    (await request(app.url, `/logs/${log.id}`, { token: s.token })).body.email_id,
    res.body.id,
    'the request log links the email',
  );
});

t.test('from must be on a verified domain of the team, and on the pinned domain of a pinned key', async (t) => {
  const s = await sender('fromrules');
  errorShape(
    t,
    await send(s.token, { from: 'x@unverified.test', to: 'a@example.net', subject: 's', text: 't' }),
    403,
    'validation_error',
  );
  const other = await sender('otherteam');
  errorShape(
    t,
    await send(s.token, { from: `x@${other.domain}`, to: 'a@example.net', subject: 's', text: 't' }),
    403,
    'validation_error',
  );
  errorShape(
    t,
    await send(s.token, { from: 'x@sub.fromrules.test', to: 'a@example.net', subject: 's', text: 't' }),
    403,
    'validation_error',
  );
  const second = await addVerifiedDomain(app, dns, s.token, 'second-fromrules.test');
  const pinned = (
    await request(app.url, '/api-keys', {
      method: 'POST',
      token: s.token,
      body: { name: 'pinned', permission: 'sending_access', domain_id: second },
    })
  ).body.token;
  errorShape(
    t,
    await send(pinned, { from: 'x@fromrules.test', to: 'a@example.net', subject: 's', text: 't' }),
    403,
    'validation_error',
  );
  t.equal(
    (await send(pinned, { from: 'x@second-fromrules.test', to: 'a@example.net', subject: 's', text: 't' })).status,
    200,
  );
});

t.test('field rules', async (t) => {
  const s = await sender('fields');
  const base = { from: 'x@fields.test', to: 'a@example.net', subject: 'Subject', text: 'body' };
  const missing = errorShape(t, await send(s.token, { to: 'a@example.net' }), 422, 'missing_required_field');
  t.same(missing.errors?.map((e) => e.path).sort(), ['from', 'html', 'subject']);
  errorShape(t, await send(s.token, { from: 'x@fields.test', subject: 's', text: 't' }), 422, 'missing_required_field');
  for (const [what, body] of [
    ['bad from', { ...base, from: 'not an address' }],
    ['CRLF in from', { ...base, from: 'Evil\r\nBcc: x@y.z <x@fields.test>' }],
    ['bad to', { ...base, to: ['ok@example.net', 'broken'] }],
    [
      '51 recipients',
      {
        ...base,
        to: Array.from({ length: 30 }, (_, i) => `t${i}@example.net`),
        cc: Array.from({ length: 21 }, (_, i) => `c${i}@example.net`),
      },
    ],
    ['subject too long', { ...base, subject: 'é'.repeat(500) }],
    ['subject two lines', { ...base, subject: 'a\r\nBcc: x@example.net' }],
    ['body over 2 MB', { ...base, html: 'x'.repeat(1024 * 1024 + 1), text: 'y'.repeat(1024 * 1024) }],
    ['refused header', { ...base, headers: { From: 'x@evil.test' } }],
    ['list-unsubscribe header', { ...base, headers: { 'List-Unsubscribe-Post': 'x' } }],
    ['header injection', { ...base, headers: { 'X-Note': 'a\r\nBcc: x@example.net' } }],
    ['custom headers over 16 KB', { ...base, headers: { 'X-Long': 'x'.repeat(70_000) } }],
    [
      'many headers over 16 KB together',
      { ...base, headers: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`X-H${i}`, 'y'.repeat(1000)])) },
    ],
    ['51 reply-to addresses', { ...base, reply_to: Array.from({ length: 51 }, (_, i) => `r${i}@example.net`) }],
    ['bad tag characters', { ...base, tags: [{ name: 'bad tag', value: 'x' }] }],
    [
      'repeated tag',
      {
        ...base,
        tags: [
          { name: 'a', value: '1' },
          { name: 'a', value: '2' },
        ],
      },
    ],
    ['51 tags', { ...base, tags: Array.from({ length: 51 }, (_, i) => ({ name: `t${i}`, value: 'v' })) }],
    [
      '101 attachments',
      { ...base, attachments: Array.from({ length: 101 }, () => ({ filename: 'a', content: 'YQ==' })) },
    ],
    ['bad content_id', { ...base, attachments: [{ filename: 'a', content: 'YQ==', content_id: 'has space' }] }],
    [
      'content_type subtype over 127 characters',
      { ...base, attachments: [{ filename: 'a', content: 'YQ==', content_type: `application/${'b'.repeat(128)}` }] },
    ],
    [
      'filename over 255 characters',
      { ...base, attachments: [{ filename: `${'n'.repeat(252)}.txt`, content: 'YQ==' }] },
    ],
    ['unknown field', { ...base, priority: 'high' }],
    ['scheduled too soon', { ...base, scheduled_at: new Date(Date.now() + 10_000).toISOString() }],
    ['scheduled too late', { ...base, scheduled_at: 'in 31 days' }],
    ['scheduled nonsense', { ...base, scheduled_at: 'whenever' }],
  ] as const) {
    const res = await send(s.token, body);
    t.equal(res.status, 400, `${what}: 400`);
    t.equal(res.body.name, 'validation_error', `${what}: validation_error`);
  }
  t.equal(
    (
      await send(s.token, {
        ...base,
        subject: 'é'.repeat(499),
        to: Array.from({ length: 50 }, (_, i) => `t${i}@example.net`),
      })
    ).status,
    200,
    'limits themselves are fine',
  );
  const atLimits = {
    ...base,
    headers: Object.fromEntries(
      Array.from({ length: 16 }, (_, i) => [`X-H${String(i).padStart(2, '0')}`, 'y'.repeat(1024 - 5)]),
    ),
    reply_to: Array.from({ length: 50 }, (_, i) => `Reply ${'東'.repeat(200)} <r${i}@example.net>`),
  };
  t.equal(
    (await send(s.token, atLimits)).status,
    200,
    '16 KB of custom headers and 50 long reply-to addresses are stored (MariaDB too)',
  );
});

t.test('attachments: exactly one of content and path; content must be base64', async (t) => {
  const s = await sender('attach');
  const base = { from: 'x@attach.test', to: 'a@example.net', subject: 's', text: 't' };
  errorShape(t, await send(s.token, { ...base, attachments: [{ filename: 'a.txt' }] }), 422, 'invalid_attachment');
  errorShape(
    t,
    await send(s.token, {
      ...base,
      attachments: [{ filename: 'a.txt', content: 'YQ==', path: 'https://files.example/a.txt' }],
    }),
    422,
    'invalid_attachment',
  );
  errorShape(
    t,
    await send(s.token, { ...base, attachments: [{ filename: 'a.txt', content: '%%%not base64' }] }),
    422,
    'invalid_attachment',
  );
  errorShape(
    t,
    await send(s.token, { ...base, attachments: [{ filename: 'a.txt', path: 'https://files.example/a.txt' }] }),
    422,
    'invalid_attachment',
  );
  t.equal(
    (
      await send(s.token, {
        ...base,
        attachments: [{ filename: 'logo.png', content: 'iVBORw0KGgo=', content_type: 'image/png', content_id: 'logo' }],
      })
    ).status,
    200,
  );
});

t.test('templates: the published version renders; request values win; draft and mixing refused', async (t) => {
  const s = await sender('tpl');
  const created = await request(app.url, '/templates', {
    method: 'POST',
    token: s.token,
    body: {
      name: 'W',
      alias: 'welcome',
      from: 'Team <team@tpl.test>',
      subject: 'Hi {{name}}',
      html: '<p>Hi {{name}}, you have {{count}}</p>',
      variables: [
        { key: 'name', type: 'string' },
        { key: 'count', type: 'number', fallback_value: 1 },
      ],
    },
  });
  errorShape(
    t,
    await send(s.token, { to: 'a@example.net', template: { id: 'welcome', variables: { name: 'Ann' } } }),
    422,
    'invalid_parameter',
  );
  await request(app.url, `/templates/${created.body.id}/publish`, { method: 'POST', token: s.token });
  const res = await send(s.token, { to: 'a@example.net', template: { id: 'WELCOME', variables: { name: '<Ann>' } } });
  t.equal(res.status, 200);
  const got = (await request(app.url, `/emails/${res.body.id}`, { token: s.token })).body;
  t.match(got, {
    from: 'Team <team@tpl.test>',
    subject: 'Hi <Ann>',
    html: '<p>Hi &lt;Ann&gt;, you have 1</p>',
    template_id: created.body.id,
    template_version_id: String,
  });
  const own = await send(s.token, {
    from: 'me@tpl.test',
    subject: 'Mine',
    to: 'a@example.net',
    template: { id: created.body.id, variables: { name: 'B' } },
  });
  t.match((await request(app.url, `/emails/${own.body.id}`, { token: s.token })).body, {
    from: 'me@tpl.test',
    subject: 'Mine',
  });
  errorShape(
    t,
    await send(s.token, { to: 'a@example.net', template: { id: 'welcome' } }),
    422,
    'missing_required_field',
  );
  errorShape(
    t,
    await send(s.token, {
      to: 'a@example.net',
      html: '<p>x</p>',
      template: { id: 'welcome', variables: { name: 'x' } },
    }),
    422,
    'invalid_parameter',
  );
  errorShape(
    t,
    await send(s.token, { to: 'a@example.net', template: { id: 'welcome', variables: { name: 'x'.repeat(2001) } } }),
    400,
    'validation_error',
  );
  errorShape(t, await send(s.token, { to: 'a@example.net', template: { id: 'no-such-template' } }), 404, 'not_found');
});

t.test('sandbox: tiers 0 and 1 send only to members, the simulator and verified domains', async (t) => {
  const team = await app.runtime.services.teams.create({
    name: 'Sandboxed',
    planCode: 'unlimited',
    ownerEmail: 'owner@elsewhere.example',
  });
  const key = await app.runtime.services.apiKeys.create(team.id, { name: 'k', permission: 'full_access' });
  await addVerifiedDomain(app, dns, key.token, 'sandboxed.test');
  const base = { from: 'x@sandboxed.test', subject: 's', text: 't' };
  const refused = errorShape(
    t,
    await send(key.token, { ...base, to: ['someone@sandboxed.test', 'stranger@example.net'] }),
    403,
    'validation_error',
  );
  t.same(refused.details, {
    recipient: 'stranger@example.net',
    region: 'us-east-1',
    allowed: ['verified_identity', 'verified_domain', 'simulator'],
  });
  t.equal(
    (
      await send(key.token, {
        ...base,
        to: ['owner@elsewhere.example', 'delivered@simulator.mailroom.localhost', 'x@deep.sandboxed.test'],
      })
    ).status,
    200,
  );
});

t.test('suppressed recipients are skipped and recorded as email.suppressed', async (t) => {
  const s = await sender('supp');
  await app.runtime.services.suppressions.add(s.teamId, 'Gone@Example.net', 'bounce');
  const res = await send(s.token, {
    from: 'x@supp.test',
    to: ['gone@example.net', 'here@example.net'],
    subject: 's',
    text: 't',
    tags: [{ name: 'k', value: 'v' }],
  });
  t.equal(res.status, 200);
  const events = await app.runtime.services.eventLog.list(s.teamId, { type: 'email.suppressed' });
  t.equal(events.length, 1);
  t.match(events[0]!.data, {
    email_id: res.body.id,
    to: ['gone@example.net'],
    subject: 's',
    tags: { k: 'v' },
    suppressed: { type: String, message: String },
  });
  t.equal(
    (await request(app.url, `/emails/${res.body.id}`, { token: s.token })).body.last_event,
    'queued',
    'the other recipient still gets it',
  );
  const all = await send(s.token, { from: 'x@supp.test', to: 'gone@example.net', subject: 's', text: 't' });
  t.equal((await request(app.url, `/emails/${all.body.id}`, { token: s.token })).body.last_event, 'suppressed');
});

t.test('scheduled_at: instants and phrases, read as UTC; email.scheduled recorded', async (t) => {
  const s = await sender('sched');
  const base = { from: 'x@sched.test', to: 'a@example.net', subject: 's', text: 't' };
  const before = Date.now();
  const res = await send(s.token, { ...base, scheduled_at: 'in 1 hour' });
  const got = (await request(app.url, `/emails/${res.body.id}`, { token: s.token })).body;
  t.equal(got.last_event, 'scheduled');
  const at = Date.parse(got.scheduled_at);
  t.ok(at >= before + 3_600_000 - 1000 && at <= Date.now() + 3_600_000 + 1000, 'an hour from now');
  const iso = new Date(Date.now() + 2 * 86_400_000).toISOString();
  const isoRes = await send(s.token, { ...base, scheduled_at: iso });
  t.equal((await request(app.url, `/emails/${isoRes.body.id}`, { token: s.token })).body.scheduled_at, iso);
  const events = await app.runtime.services.eventLog.list(s.teamId, { type: 'email.scheduled' });
  t.equal(events.length, 2);
});

t.test('quotas: the free plan’s daily cap is 429 daily_quota_exceeded without retry-after', async (t) => {
  const s = await sender('quota', 'free');
  const first = await send(s.token, { from: 'x@quota.test', to: 'a@example.net', subject: 's', text: 't' });
  const row = await app.runtime.db.knex('emails').where({ id: first.body.id }).first();
  const { newId } = await import('../../lib/ids.js');
  await app.runtime.db.knex('emails').insert(Array.from({ length: 99 }, () => ({ ...row, id: newId() })));
  const refused = await send(s.token, { from: 'x@quota.test', to: 'a@example.net', subject: 's', text: 't' });
  errorShape(t, refused, 429, 'daily_quota_exceeded');
  t.equal(refused.headers.get('retry-after'), null, 'no retry-after on quota refusals');
});

// On the first day of a month every email this month is also today's: the daily cap answers first.
const firstOfMonth = new Date().getUTCDate() === 1;
t.test(
  'quotas: the free plan’s monthly allowance is 429 monthly_quota_exceeded',
  { skip: firstOfMonth && 'the daily cap answers first on the 1st' },
  async (t) => {
    const now = new Date();
    const s = await sender('monthly', 'free');
    const first = await send(s.token, { from: 'x@monthly.test', to: 'a@example.net', subject: 's', text: 't' });
    const row = await app.runtime.db.knex('emails').where({ id: first.body.id }).first();
    const { newId } = await import('../../lib/ids.js');
    const earlierThisMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1, 0, 0, 1));
    const rows = Array.from({ length: 3000 }, () => ({ ...row, id: newId(), created_at: earlierThisMonth }));
    for (let i = 0; i < rows.length; i += 500) await app.runtime.db.knex('emails').insert(rows.slice(i, i + 500));
    const refused = await send(s.token, { from: 'x@monthly.test', to: 'a@example.net', subject: 's', text: 't' });
    errorShape(t, refused, 429, 'monthly_quota_exceeded');
    t.equal(refused.headers.get('retry-after'), null);
  },
);

t.test('Idempotency-Key on POST /emails: one email for one key', async (t) => {
  const s = await sender('idem');
  const body = { from: 'x@idem.test', to: 'a@example.net', subject: 's', text: 't' };
  const a = await send(s.token, body, { 'idempotency-key': 'order-1' });
  const b = await send(s.token, body, { 'idempotency-key': 'order-1' });
  t.equal(a.body.id, b.body.id);
  t.equal(Number((await app.runtime.db.knex('emails').where({ team_id: s.teamId }).count({ n: '*' }))[0]!.n), 1);
  errorShape(
    t,
    await send(s.token, { ...body, subject: 'other' }, { 'idempotency-key': 'order-1' }),
    409,
    'invalid_idempotent_request',
  );
});

t.test('the resend SDK: emails.send, get, list', async (t) => {
  const s = await sender('sdkmail');
  const resend = new Resend(s.token, { baseUrl: `${app.url}/api/v1` } as never);
  const sent = await resend.emails.send({
    from: 'SDK <sdk@sdkmail.test>',
    to: ['a@example.net'],
    subject: 'From the SDK',
    html: '<b>hi</b>',
    replyTo: 'r@sdkmail.test',
    tags: [{ name: 'src', value: 'sdk' }],
  });
  t.equal(sent.error, null);
  const got = await resend.emails.get(sent.data!.id);
  t.match(got.data, { id: sent.data!.id, subject: 'From the SDK', reply_to: ['r@sdkmail.test'], last_event: 'queued' });
  const list = await resend.emails.list();
  t.ok(list.data!.data.some((e) => e.id === sent.data!.id));
  const bad = await resend.emails.send({ from: 'sdk@sdkmail.test', to: ['a@example.net'], subject: 'x' } as never);
  t.equal(bad.error?.name, 'missing_required_field');
});

t.test('attachments of a sent email: list, one, and a signed expiring download', async (t) => {
  const s = await sender('files');
  const pdf = Buffer.from('%PDF-1.7 the actual bytes');
  const res = await send(s.token, {
    from: 'x@files.test',
    to: 'a@example.net',
    subject: 's',
    html: '<img src="cid:logo">',
    attachments: [
      { filename: 'report.pdf', content: pdf.toString('base64'), content_type: 'application/pdf' },
      { filename: 'logo.png', content: 'iVBORw0KGgo=', content_type: 'image/png', content_id: 'logo' },
    ],
  });
  const list = await request(app.url, `/emails/${res.body.id}/attachments`, { token: s.token });
  t.equal(list.status, 200);
  t.match(list.body.data, [
    {
      object: 'attachment',
      filename: 'report.pdf',
      size: pdf.length,
      content_type: 'application/pdf',
      content_disposition: 'attachment',
      download_url: /\/attachments\/.+\/download\?expires=\d+&signature=/,
      expires_at: String,
    },
    { filename: 'logo.png', content_disposition: 'inline', content_id: 'logo' },
  ]);
  const one = await request(app.url, `/emails/${res.body.id}/attachments/${list.body.data[0].id}`, { token: s.token });
  t.equal(one.body.id, list.body.data[0].id);
  errorShape(
    t,
    await request(app.url, `/emails/${res.body.id}/attachments/0199a0a0-0000-7000-8000-000000000000`, {
      token: s.token,
    }),
    404,
    'not_found',
  );

  const url = new URL(list.body.data[0].download_url);
  const download = await fetch(url, { headers: { 'user-agent': 'browser' } });
  t.equal(download.status, 200);
  t.same(Buffer.from(await download.arrayBuffer()), pdf, 'the exact bytes');
  t.equal(download.headers.get('content-type'), 'application/pdf');
  t.match(download.headers.get('content-disposition'), /filename="report.pdf"/);
  const tampered = new URL(url);
  tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
  errorShape(t, await request(app.url, tampered.pathname + tampered.search), 404, 'not_found');
  const expired = new URL(url);
  expired.searchParams.set('expires', '1000');
  errorShape(t, await request(app.url, expired.pathname + expired.search), 404, 'not_found');
  const other = await sender('files2');
  errorShape(t, await request(app.url, `/emails/${res.body.id}/attachments`, { token: other.token }), 404, 'not_found');
});

t.test('retention: emails and attachments past the plan window are purged by the job', async (t) => {
  const s = await sender('retain', 'free');
  const old = await send(s.token, {
    from: 'x@retain.test',
    to: 'a@example.net',
    subject: 'old',
    text: 't',
    attachments: [{ filename: 'a.txt', content: 'YQ==' }],
  });
  const fresh = await send(s.token, { from: 'x@retain.test', to: 'a@example.net', subject: 'fresh', text: 't' });
  const aged = new Date(Date.now() - 31 * 86_400_000);
  await app.runtime.db.knex('emails').where({ id: old.body.id }).update({ created_at: aged });
  await app.runtime.db.knex('email_attachments').where({ email_id: old.body.id }).update({ created_at: aged });
  const result = await app.runtime.services.emails.purgeExpired();
  t.ok(result.emails >= 1 && result.attachments >= 1);
  errorShape(t, await request(app.url, `/emails/${old.body.id}`, { token: s.token }), 404, 'not_found');
  t.equal(
    (await request(app.url, `/emails/${fresh.body.id}`, { token: s.token })).status,
    200,
    'within the window: kept',
  );
});
