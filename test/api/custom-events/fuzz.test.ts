import t from 'tap';
import { request } from '../../helpers/http.js';
import { bodyMutator } from '../../helpers/body-mutator.js';
import { seededRandom } from '../../helpers/seeded-random.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * The custom event routes never answer 5xx to bad input: valid bodies mutated at random (a
 * value swapped for an odd one, a key dropped or added), odd identifiers and queries. Every
 * refusal is the spec's error body. Fixed seed: a failure names a request that reproduces.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam();
const call = (method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const contact = (await call('POST', '/contacts', { email: 'ada@example.com' })).body.id;
await call('POST', '/events', { name: 'seeded', schema: { s: 'string', n: 'number', b: 'boolean', d: 'date' } });

const random = seededRandom(Number(process.env.FUZZ_SEED ?? 20261126));
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const ODD: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  '',
  ' ',
  'x'.repeat(20_000),
  '\u0000\u0007',
  '😀\u202e\ud800',
  'svc:contact.created',
  '2026-02-30',
  '00000000-0000-0000-0000-000000000000',
  [],
  {},
  [[[[]]]],
  { constructor: 'string', toString: 'number', hasOwnProperty: 'date' },
  Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, 'string'])),
];
const SEEDS: Array<{ method: string; path: string; body: unknown }> = [
  { method: 'POST', path: '/events', body: { name: 'fuzz.name', schema: { a: 'string', b: 'date' } } },
  { method: 'PATCH', path: '/events/seeded', body: { schema: { s: 'string', n: 'number' } } },
  {
    method: 'POST',
    path: '/events/send',
    body: { event: 'seeded', contact_id: contact, payload: { s: 'x', n: 1, b: true, d: '2026-01-01' } },
  },
  { method: 'POST', path: '/events/send', body: { event: 'seeded', email: 'ada@example.com', payload: {} } },
];

const mutate = bodyMutator(random, ODD, ['unknown', 'id', 'name', 'constructor', 'toString', 'payload']);

t.test('mutated requests: no 5xx, every error in the spec body', async (t) => {
  const statuses = new Map<number, number>();
  const failures: string[] = [];
  for (let round = 0; round < 400; round++) {
    let res;
    let label;
    if (random() < 0.8) {
      const seed = pick(SEEDS);
      const body = mutate(seed.body);
      label = `#${round} ${seed.method} ${seed.path} ${JSON.stringify(body).slice(0, 200)}`;
      res = await call(seed.method, seed.path, body);
    } else {
      const id = pick([
        'x',
        'seeded',
        'SEEDED',
        '%00',
        'a'.repeat(300),
        "1'or'1'='1",
        '00000000-0000-0000-0000-000000000000',
        '%F0%9F%98%80',
      ]);
      const query = pick(['', '?search=%25', '?search=', '?limit=abc', '?after=x', `?search=${'z'.repeat(300)}`]);
      const method = pick(['GET', 'PATCH', 'DELETE']);
      const path = pick([`/events/${id}`, `/events${query}`]);
      label = `#${round} ${method} ${path.slice(0, 200)}`;
      res = await call(
        method === 'DELETE' && path.includes('?') ? 'GET' : method,
        path,
        method === 'PATCH' ? {} : undefined,
      );
    }
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    const shaped =
      res.status < 400 ||
      (res.body?.statusCode === res.status &&
        typeof res.body.name === 'string' &&
        typeof res.body.message === 'string');
    if (res.status >= 500 || !shaped) failures.push(`${label}: ${res.status} ${res.text.slice(0, 300)}`);
  }
  t.same(failures, [], 'no 5xx, every refusal in the error body');
  const seen = [...statuses.keys()];
  t.ok(seen.some((s) => s < 300) && seen.some((s) => s >= 400), JSON.stringify(Object.fromEntries(statuses)));
});
