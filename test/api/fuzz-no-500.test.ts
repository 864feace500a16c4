import t, { type Test } from 'tap';
import { request } from '../helpers/http.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { startTestApp } from '../helpers/test-app.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';
import { bodyMutator } from '../helpers/body-mutator.js';
import { seededRandom } from '../helpers/seeded-random.js';

/**
 * Bad input never makes a 500: valid requests of every writing route, mutated at random (a
 * value swapped for another type, a huge or control-character string, a key dropped or
 * added, the body truncated, nested too deep, or not JSON at all), and odd query strings and
 * path ids. Every answer must be below 500, and every error must be the spec's error body.
 * The generator has a fixed seed, so a failure names a request that reproduces.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const ROUNDS = Number(process.env.FUZZ_ROUNDS ?? 1200);

const dns = await TestDnsServer.start();
const app = await startTestApp({ env: { MAILROOM_DNS_SERVERS: dns.address } });
t.teardown(async () => {
  await app.close();
  await dns.close();
});

const team = await app.createTeam('Fuzz', 'unlimited');
await app.runtime.services.teams.setTier(team.teamId, 2);
const domainId = await addVerifiedDomain(app, dns, team.token, 'fuzz.test');
const sent = await request(app.url, '/emails', {
  method: 'POST',
  token: team.token,
  body: { from: 'a@fuzz.test', to: 'b@example.net', subject: 's', text: 't', scheduled_at: 'in 1 hour' },
});
const template = await request(app.url, '/templates', {
  method: 'POST',
  token: team.token,
  body: { name: 'T', html: '<p>{{{NAME}}}</p>', variables: [{ key: 'NAME', type: 'string', fallback_value: 'x' }] },
});
const hook = await request(app.url, '/webhooks', {
  method: 'POST',
  token: team.token,
  body: { endpoint: 'https://example.net/hook', events: ['email.sent'] },
});
const key = await request(app.url, '/api-keys', { method: 'POST', token: team.token, body: { name: 'fuzzed' } });

const random = seededRandom(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const ODD_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  '',
  ' ',
  'x'.repeat(70_000),
  'a\r\nBcc: evil@example.net',
  '\u0000\u0007\u001b',
  '😀\u202e\ud800',
  'in 999 years',
  '2026-13-45T25:61:00Z',
  '<script>alert(1)</script>',
  '{{{NAME}}}',
  'not-an-address',
  '"quoted"@example.net',
  'a@[127.0.0.1]',
  `${'a'.repeat(300)}@example.net`,
  `${'N'.repeat(700)} <a@fuzz.test>`,
  `"${'Q'.repeat(1000)}" <b@example.net>`,
  `a@${'sub.'.repeat(70)}example.net`,
  [],
  {},
  [[[[[]]]]],
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
  Array.from({ length: 200 }, (_, i) => `r${i}@example.net`),
  [{ name: 'x', value: 'y' }],
  [{ filename: 'a.txt', content: '!!!not base64' }],
  [{ filename: 'a.txt', path: 'http://127.0.0.1:1/x' }],
  [{ key: 'NAME', type: 'number', fallback_value: 'x' }],
];

type Seed = { method: string; path: string; body?: unknown };
const SEEDS: Seed[] = [
  {
    method: 'POST',
    path: '/emails',
    body: {
      from: 'Fuzz <a@fuzz.test>',
      to: ['b@example.net'],
      cc: 'c@example.net',
      bcc: ['d@example.net'],
      reply_to: 'e@fuzz.test',
      subject: 'Hello',
      html: '<p>Hi <a href="https://example.net">x</a></p>',
      text: 'Hi',
      headers: { 'X-Entity-Ref-ID': '1' },
      tags: [{ name: 'category', value: 'welcome' }],
      attachments: [{ filename: 'a.txt', content: 'aGVsbG8=', content_type: 'text/plain' }],
      scheduled_at: 'in 1 hour',
    },
  },
  {
    method: 'POST',
    path: '/emails',
    body: { from: 'a@fuzz.test', to: 'b@example.net', template: { id: template.body.id, variables: { NAME: 'Ann' } } },
  },
  {
    method: 'POST',
    path: '/emails/batch',
    body: [
      { from: 'a@fuzz.test', to: 'b@example.net', subject: 's', text: 't' },
      { from: 'a@fuzz.test', to: ['c@example.net'], subject: 's', html: '<b>x</b>' },
    ],
  },
  { method: 'PATCH', path: `/emails/${sent.body.id}`, body: { scheduled_at: 'in 2 hours' } },
  {
    method: 'POST',
    path: '/templates',
    body: {
      name: 'N',
      alias: 'alias-x',
      subject: 'S {{{NAME}}}',
      html: '<p>{{{NAME}}}</p>',
      variables: [{ key: 'NAME', type: 'string', fallback_value: 'x' }],
    },
  },
  {
    method: 'PATCH',
    path: `/templates/${template.body.id}`,
    body: { name: 'M', html: '<p>{{{NAME}}}</p>', variables: [{ key: 'NAME', type: 'string', fallback_value: 'y' }] },
  },
  {
    method: 'POST',
    path: '/domains',
    body: { name: 'other.test', region: 'eu-west-1', custom_return_path: 'bounces', open_tracking: true },
  },
  {
    method: 'PATCH',
    path: `/domains/${domainId}`,
    body: { open_tracking: true, click_tracking: false, tls: 'enforced' },
  },
  { method: 'POST', path: '/api-keys', body: { name: 'k', permission: 'sending_access', domain_id: domainId } },
  {
    method: 'POST',
    path: '/webhooks',
    body: { endpoint: 'https://example.net/hook', events: ['email.sent', 'email.delivered'] },
  },
  { method: 'POST', path: '/suppressions', body: { email: 'x@example.net', reason: 'manual' } },
  { method: 'POST', path: '/suppressions/batch/add', body: { emails: ['x@example.net', 'y@example.net'] } },
  { method: 'POST', path: '/suppressions/batch/remove', body: { emails: ['x@example.net'] } },
  {
    method: 'PATCH',
    path: `/webhooks/${hook.body.id}`,
    body: { endpoint: 'https://example.net/other', events: ['email.delivered'], status: 'disabled' },
  },
  { method: 'PATCH', path: `/api-keys/${key.body.id}`, body: { name: 'renamed', permission: 'full_access' } },
  {
    method: 'PATCH',
    path: '/team',
    body: {
      name: 'Fuzz',
      sender_name: 'Fuzz Inc',
      brand_kit: {
        logo_url: 'https://example.net/logo.png',
        primary_color: '#112233',
        accent_color: '#445566',
        font: 'arial',
        button_style: 'pill',
        company_name: 'Fuzz',
        address: '1 Main St',
        footer_text: 'Bye',
      },
    },
  },
  { method: 'POST', path: `/templates/${template.body.id}/publish` },
  { method: 'POST', path: `/templates/${template.body.id}/duplicate` },
  { method: 'POST', path: `/emails/${sent.body.id}/cancel` },
  { method: 'POST', path: `/domains/${domainId}/verify` },
];
const QUERIES = [
  '/emails',
  '/templates',
  '/domains',
  '/logs',
  '/suppressions',
  '/webhooks',
  '/api-keys',
  '/emails/metrics',
];
const QUERY_VALUES = [
  '',
  '0',
  '-1',
  '101',
  'abc',
  '1e3',
  '%00',
  '%E0%A4%A',
  'x'.repeat(5000),
  '00000000-0000-0000-0000-000000000000',
  '2026-02-30',
  'UTC',
  'Mars/Phobos',
];
const QUERY_KEYS = [
  'limit',
  'after',
  'before',
  'status',
  'start_date',
  'end_date',
  'timezone',
  'dimensions',
  'metrics',
  'granularity',
  'email_id',
  'domain_id',
  'order',
];
const IDS = [
  'x',
  '..',
  '%2e%2e%2f',
  'a'.repeat(2000),
  '00000000-0000-0000-0000-000000000000',
  '%00',
  "1'or'1'='1",
  'tmpl-alias',
];

/** A copy of `value` with one node (at random depth) replaced, dropped, or given a sibling. */
const mutate = bodyMutator(random, ODD_VALUES, ['unknown', 'id', 'team_id', '__proto__', 'status']);

/** The raw body: usually mutated JSON, sometimes broken JSON or not JSON at all. */
function rawBody(seed: Seed): { text: string; contentType: string } {
  const json = JSON.stringify(mutate(seed.body ?? {}));
  const roll = random();
  if (roll < 0.05) return { text: json.slice(0, Math.floor(random() * json.length)), contentType: 'application/json' };
  if (roll < 0.08) return { text: `${'['.repeat(20_000)}${']'.repeat(20_000)}`, contentType: 'application/json' };
  if (roll < 0.1)
    return {
      text: json,
      contentType: pick([
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
      ]),
    };
  if (roll < 0.12) return { text: '', contentType: 'application/json' };
  if (roll < 0.13) return { text: '\uFEFF' + json, contentType: 'application/json' };
  return { text: json, contentType: 'application/json' };
}

function check(t: Test, label: string, res: { status: number; body: any; text: string }): boolean {
  if (res.status >= 500) {
    t.fail(`${label}: ${res.status} ${res.text.slice(0, 300)}`);
    return false;
  }
  if (res.status >= 400) {
    const body = res.body;
    const shaped =
      body &&
      typeof body === 'object' &&
      body.statusCode === res.status &&
      typeof body.name === 'string' &&
      typeof body.message === 'string';
    if (!shaped) {
      t.fail(`${label}: ${res.status} without the error body: ${res.text.slice(0, 300)}`);
      return false;
    }
  }
  return true;
}

t.test(`${ROUNDS} mutated requests, seed ${SEED}: no 5xx, every error in the spec's body`, async (t) => {
  const statuses = new Map<number, number>();
  // Requests a route took are logged (an unknown path or method, 404 or 405, is not): count by status.
  const logged = async () => {
    const rows = (await app.runtime.db
      .knex('request_logs')
      .where({ team_id: team.teamId })
      .select('response_status')
      .count({ n: '*' })
      .groupBy('response_status')) as Array<{ response_status: number; n: number | string }>;
    return new Map(
      rows
        .filter((r) => r.response_status !== 404 && r.response_status !== 405)
        .map((r) => [Number(r.response_status), Number(r.n)]),
    );
  };
  const loggedBefore = await logged();
  let failures = 0;
  for (let round = 0; round < ROUNDS && failures < 5; round++) {
    const roll = random();
    let label: string;
    let res: { status: number; body: any; text: string };
    if (roll < 0.75) {
      const seed = pick(SEEDS);
      const { text, contentType } = rawBody(seed);
      const headers: Record<string, string> = { 'content-type': contentType };
      if (random() < 0.1)
        headers['idempotency-key'] = pick(['', 'k'.repeat(300), 'key-1', '\u00e9']).replace(/[^\x20-\x7e]/g, '?');
      label = `#${round} ${seed.method} ${seed.path} ${contentType} ${text.slice(0, 200)}`;
      res = await request(app.url, seed.path, { method: seed.method, token: team.token, rawBody: text, headers });
    } else if (roll < 0.9) {
      const params = Array.from(
        { length: 1 + Math.floor(random() * 3) },
        () => `${pick(QUERY_KEYS)}=${pick(QUERY_VALUES)}`,
      ).join('&');
      const path = `${pick(QUERIES)}?${params}`;
      label = `#${round} GET ${path.slice(0, 200)}`;
      res = await request(app.url, path, { token: team.token });
    } else {
      const path =
        pick([
          '/emails/',
          '/templates/',
          '/domains/',
          '/webhooks/',
          '/api-keys/',
          '/logs/',
          '/suppressions/',
          '/emails/x/attachments/',
        ]) + pick(IDS);
      const method = pick(['GET', 'DELETE', 'PATCH', 'POST']);
      label = `#${round} ${method} ${path.slice(0, 200)}`;
      res = await request(app.url, path, {
        method,
        token: team.token,
        body: method === 'GET' || method === 'DELETE' ? undefined : {},
      });
    }
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    if (!check(t, label, res)) failures++;
  }
  const seen = [...statuses.keys()].sort();
  t.ok(
    seen.some((s) => s < 300) && seen.some((s) => s >= 400),
    `both accepted and refused requests were made: ${JSON.stringify(Object.fromEntries(statuses))}`,
  );
  t.equal(failures, 0, 'no request failed');
  // A log entry may be written just after its answer: wait a little for the last ones.
  const expected = new Map(
    [...statuses]
      .filter(([status]) => status !== 404 && status !== 405)
      .map(([status, n]) => [status, n + (loggedBefore.get(status) ?? 0)]),
  );
  let now = await logged();
  for (
    let waited = 0;
    JSON.stringify([...now].sort()) !== JSON.stringify([...expected].sort()) && waited < 5000;
    waited += 50
  ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    now = await logged();
  }
  t.same(Object.fromEntries(now), Object.fromEntries(expected), 'every routed request has its request log entry');
});
