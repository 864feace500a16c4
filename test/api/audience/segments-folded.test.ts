import t from 'tap';
import { request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());

// String property conditions compare values case-folded in JavaScript (lib/text/case-fold.ts),
// so beyond ASCII both dialects answer the same (SQLite's LOWER() folded ASCII only).
t.test('string property conditions ignore case beyond ASCII, the same on both dialects', async (t) => {
  const team = await app.createTeam();
  const call = (method: string, path: string, body?: unknown) =>
    request(app.url, path, { method, token: team.token, body });
  t.equal((await call('POST', '/contact-properties', { key: 'city', type: 'string' })).status, 201);
  for (const [email, city] of [
    ['a@x.test', 'ÉCOLE'],
    ['b@x.test', 'école'],
    ['c@x.test', 'İzmir'],
    ['d@x.test', 'ΟΔΟΣ'],
    ['e@x.test', 'Paris'],
  ])
    t.equal((await call('POST', '/contacts', { email, properties: { city } })).status, 201);
  await call('POST', '/contacts', { email: 'f@x.test' });
  const count = async (condition: Record<string, unknown>) =>
    (await call('POST', '/segments/preview', { filter: { all: [{ field: 'properties.city', ...condition }] } })).body
      .contacts as number;
  t.equal(await count({ op: 'eq', value: 'École' }), 2, 'eq: É and é');
  t.equal(await count({ op: 'eq', value: 'izmir' }), 1, 'eq: İ is i');
  t.equal(await count({ op: 'eq', value: 'οδος' }), 1, 'eq: final sigma');
  t.equal(await count({ op: 'contains', value: 'COL' }), 2, 'contains');
  t.equal(await count({ op: 'contains', value: 'ΟΔ' }), 1, 'contains beyond ASCII');
  t.equal(await count({ op: 'in', value: ['PARIS', 'ÉCOLE'] }), 3, 'in');
  t.equal(await count({ op: 'neq', value: 'ÉCOLE' }), 4, 'neq: also the contact without a value');
  t.equal(await count({ op: 'exists', value: true }), 5);
  t.equal(await count({ op: 'exists', value: false }), 1);
  // An update moves the folded copy with the value.
  await call('PATCH', '/contacts/e@x.test', { properties: { city: 'ÉCOLE' } });
  t.equal(await count({ op: 'eq', value: 'école' }), 3, 'after an update');
});
