import t from 'tap';
import { newId } from '../../lib/ids.js';
import { sessionInTeam } from '../helpers/accounts.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * GET /suppressions for the dashboard's search box: `email` (one address, exactly) and `q` (the
 * start of an address), with `origin` and the cursors; every item carries origin and source_id.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam('Search', 'unlimited');
const list = async (query: string, token = team.token) => {
  const res = await request(app.url, `/suppressions?${query}`, { token });
  // Not an assertion of the root test (it would end it early): a refusal here is a failure.
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
  return res.body as { object: string; has_more: boolean; data: Array<Record<string, unknown>> };
};
const emails = (page: { data: Array<Record<string, unknown>> }) => page.data.map((s) => s.email);

const suppressions = app.runtime.services.suppressions;
const bouncedEmailId = newId();
await suppressions.add(team.teamId, 'Anna@Example.com');
await suppressions.add(team.teamId, 'anna.b@example.com', 'bounce', bouncedEmailId);
await suppressions.add(team.teamId, 'annabel@example.org', 'complaint', newId());
await suppressions.add(team.teamId, 'bob_anna@example.com', 'unsubscribe');
await suppressions.add(team.teamId, 'a%b@example.com');

t.test('each item: id, email, origin, source_id, created_at', async (t) => {
  const page = await list('email=anna.b@example.com');
  t.same(page.data, [
    {
      id: page.data[0]!.id,
      email: 'anna.b@example.com',
      origin: 'bounce',
      source_id: bouncedEmailId,
      created_at: page.data[0]!.created_at,
    },
  ]);
});

t.test('email is one address, exactly and in any case', async (t) => {
  t.same(emails(await list('email=ANNA@example.COM')), ['Anna@Example.com']);
  t.same(emails(await list('email=anna@example.co')), [], 'not a prefix');
  t.same(emails(await list('email=nobody@example.com')), []);
});

t.test('q is the start of an address, any case, % and _ literal; with origin and cursors', async (t) => {
  t.same(emails(await list('q=ANNA')), ['annabel@example.org', 'anna.b@example.com', 'Anna@Example.com']);
  t.same(emails(await list('q=anna.')), ['anna.b@example.com']);
  t.same(emails(await list('q=anna&origin=complaint')), ['annabel@example.org']);
  t.same(emails(await list('q=a%25')), ['a%b@example.com'], '% is a character');
  t.same(emails(await list('q=bob_')), ['bob_anna@example.com']);
  t.same(emails(await list('q=bob%5F')), ['bob_anna@example.com']);
  t.same(emails(await list('q=bo_')), [], '_ is a character, not any character');
  const first = await list('q=anna&limit=2');
  t.same(emails(first), ['annabel@example.org', 'anna.b@example.com']);
  t.equal(first.has_more, true);
  const next = await list(`q=anna&limit=2&after=${first.data[1]!.id}`);
  t.same(emails(next), ['Anna@Example.com']);
  t.equal(next.has_more, false);
  t.same(emails(await list('q=anna&email=anna@example.com')), ['Anna@Example.com'], 'both together');
});

t.test('the session cookie reaches the same list', async (t) => {
  const cookie = await sessionInTeam(app, 'search@example.com', team.teamId, 'owner');
  const res = await request(app.url, '/suppressions?q=anna.b', { headers: { cookie } });
  t.equal(res.status, 200);
  t.same(
    res.body.data.map((s: { email: string }) => s.email),
    ['anna.b@example.com'],
  );
});

t.test('another team sees none of them', async (t) => {
  const other = await app.createTeam('Other');
  t.same((await list('q=anna', other.token)).data, []);
  t.same((await list('email=anna@example.com', other.token)).data, []);
});

t.test('invalid values: 422 invalid_parameter', async (t) => {
  for (const query of ['email=not-an-address', 'email=', 'q=', 'q=%20', `q=${'a'.repeat(321)}`, 'origin=spam']) {
    const body = errorShape(
      t,
      await request(app.url, `/suppressions?${query}`, { token: team.token }),
      422,
      'invalid_parameter',
    );
    t.ok(body.message.length > 0, query);
  }
  const sending = await app.runtime.services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });
  errorShape(t, await request(app.url, '/suppressions?q=a', { token: sending.token }), 401, 'restricted_api_key');
  errorShape(t, await request(app.url, '/suppressions?q=a'), 401, 'missing_api_key');
});
