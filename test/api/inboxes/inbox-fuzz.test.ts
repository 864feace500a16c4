import t from 'tap';
import { bodyMutator } from '../../helpers/body-mutator.js';
import { request } from '../../helpers/http.js';
import { customerWrites, startInboxApp } from '../../helpers/inbox-fixture.js';
import { seededRandom } from '../../helpers/seeded-random.js';

/**
 * Bad input to the inbox routes never makes a 500: valid requests of every writing inbox route,
 * mutated at random (as test/api/fuzz-no-500.test.ts does for the others), and odd query strings
 * on the lists. Every answer is below 500, every error the spec's error body. Fixed seed.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261129);
const ROUNDS = Number(process.env.FUZZ_ROUNDS ?? 600);
const fx = await startInboxApp();
t.teardown(() => fx.app.close());
const { app, address, inboxId, team } = fx;
const first = await customerWrites(app, { to: address });
const base = `/inboxes/${inboxId}`;
const threadId = (await request(app.url, `${base}/threads`, { token: team.token })).body.data[0].id as string;
const label = (await request(app.url, `${base}/labels`, { method: 'POST', token: team.token, body: { name: 'Seed' } }))
  .body.id as string;
const draft = (
  await request(app.url, `${base}/drafts`, {
    method: 'POST',
    token: team.token,
    body: { to: 'a@partner.test', text: 'x' },
  })
).body.id as string;
const emailPath = `${base}/threads/${threadId}/emails/${first.receivedId}`;

const random = seededRandom(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const ODD: unknown[] = [
  null,
  true,
  0,
  -1,
  '',
  ' ',
  'x'.repeat(70_000),
  'a\r\nBcc: evil@example.net',
  '\u0000',
  '😀\u202e\ud800',
  '#ZZZZZZ',
  'not-an-address',
  `${'a'.repeat(300)}@example.net`,
  [],
  {},
  [[[]]],
  ['00000000-0000-0000-0000-000000000000'],
  Array.from({ length: 60 }, (_, i) => `r${i}@example.net`),
  [{ filename: 'a.exe', content: 'aGVsbG8=' }],
  [{ filename: 'a.txt', path: 'http://127.0.0.1:1/x' }],
  { 'In-Reply-To': '<x@y>' },
  { '': 'x' },
];
const mutate = bodyMutator(random, ODD, ['unknown', 'id', 'thread_id', 'headers', 'labels']);
const SEEDS: Array<{ method: string; path: string; body: unknown }> = [
  { method: 'POST', path: '/inboxes', body: { email_address: `help@${fx.domain}`, name: 'Help', from_name: 'Help' } },
  { method: 'PATCH', path: base, body: { name: 'Support', from_name: 'Acme' } },
  {
    method: 'PATCH',
    path: `${base}/agent`,
    body: { instructions: 'Be kind', tone: 'concise_casual', actions: ['archive'] },
  },
  { method: 'POST', path: `${base}/labels`, body: { name: 'L', color: '#112233' } },
  { method: 'PATCH', path: `${base}/labels/${label}`, body: { name: 'M', color: '#445566' } },
  {
    method: 'PATCH',
    path: `${base}/threads/${threadId}`,
    body: { read: true, folder: 'archive', assignee_email: null },
  },
  { method: 'POST', path: `${base}/threads/${threadId}/labels`, body: { labels: [label] } },
  { method: 'PUT', path: `${base}/threads/${threadId}/labels`, body: { labels: [label] } },
  {
    method: 'POST',
    path: `${emailPath}/reply`,
    body: { text: 'x', cc: ['c@partner.test'], reply_all: true, headers: { 'X-Ref': '1' } },
  },
  { method: 'POST', path: `${emailPath}/forward`, body: { to: ['f@partner.test'], text: 'x', subject: 'Fwd' } },
  {
    method: 'POST',
    path: `${base}/drafts`,
    body: {
      to: ['a@partner.test'],
      subject: 'S',
      html: '<p>x</p>',
      attachments: [{ filename: 'a.txt', content: 'aGVsbG8=', content_type: 'text/plain' }],
      thread_id: threadId,
      reply_to_email_id: first.receivedId,
    },
  },
  { method: 'PATCH', path: `${base}/drafts/${draft}`, body: { subject: 'T', attachments: null } },
  { method: 'POST', path: `${base}/drafts/${draft}/send`, body: { headers: { 'X-A': 'b' } } },
];
const LISTS = [
  `${base}/threads`,
  `${base}/threads/search`,
  `${base}/drafts`,
  `/inboxes`,
  `${base}/threads/${threadId}/emails`,
];
const KEYS = [
  'limit',
  'after',
  'before',
  'folders',
  'labels',
  'read',
  'query',
  'from',
  'has_attachment',
  'start_date',
  'end_date',
];
const VALUES = [
  '',
  '0',
  '101',
  'abc',
  'inbox,,junk',
  'true',
  '%00',
  'x'.repeat(5000),
  '00000000-0000-0000-0000-000000000000',
  '2026-02-30',
];

t.test(`${ROUNDS} mutated inbox requests, seed ${SEED}: no 5xx, every error in the spec's body`, async (t) => {
  let failures = 0;
  for (let round = 0; round < ROUNDS && failures < 5; round++) {
    let label: string;
    let res: { status: number; body: any; text: string };
    if (random() < 0.75) {
      const seed = pick(SEEDS);
      const body = mutate(seed.body);
      label = `${seed.method} ${seed.path} ${JSON.stringify(body).slice(0, 200)}`;
      res = await request(app.url, seed.path, { method: seed.method, token: team.token, body });
    } else {
      const query = Array.from(
        { length: 1 + Math.floor(random() * 3) },
        () => `${pick(KEYS)}=${encodeURIComponent(pick(VALUES))}`,
      ).join('&');
      label = `GET ${pick(LISTS)}?${query}`;
      res = await request(app.url, label.slice(4), { token: team.token });
    }
    if (res.status >= 500) {
      failures++;
      t.fail(`${label}: ${res.status} ${res.text.slice(0, 300)}`);
    } else if (res.status >= 400) {
      const shaped =
        res.body &&
        res.body.statusCode === res.status &&
        typeof res.body.name === 'string' &&
        typeof res.body.message === 'string';
      if (!shaped) {
        failures++;
        t.fail(`${label}: ${res.status} without the error body`);
      }
    }
  }
  t.equal(failures, 0, 'no request answered 5xx or an error outside the spec’s body');
});
