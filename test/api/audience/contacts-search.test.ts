import t from 'tap';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/** GET /contacts?q=: the dashboard's search box, the start of an address (beyond the spec's list). */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam('Search');
const other = await app.createTeam('Other');
const call = (path: string, token = team.token) => request(app.url, path, { token });
for (const email of ['Anna@Example.com', 'anne@example.com', 'bob@example.com', 'an_x@example.com', 'an%y@example.com'])
  await request(app.url, '/contacts', { method: 'POST', token: team.token, body: { email } });
await request(app.url, '/contacts', { method: 'POST', token: other.token, body: { email: 'anna.other@example.com' } });
const emailsOf = (body: { data: Array<{ email: string }> }) => body.data.map((c) => c.email);

t.test('the start of an address, any case, in address order, only the team’s', async (t) => {
  const res = await call('/contacts?q=ANN');
  t.equal(res.status, 200);
  t.same(emailsOf(res.body), ['Anna@Example.com', 'anne@example.com']);
  t.same(Object.keys(res.body).sort(), ['data', 'object'], 'the list shape of the spec (no has_more)');
  t.same(emailsOf((await call('/contacts?q=%20bob%20')).body), ['bob@example.com'], 'spaces around are ignored');
  t.same(emailsOf((await call('/contacts?q=an_')).body), ['an_x@example.com'], '_ is an ordinary character');
  t.same(emailsOf((await call('/contacts?q=an%25')).body), ['an%y@example.com'], '% is an ordinary character');
  t.same(emailsOf((await call('/contacts?q=zzz')).body), []);
});

t.test('pages with limit, after and before (contact ids), in the database’s address order', async (t) => {
  // Punctuation sorts differently in SQLite and in MariaDB's collation: the pages are checked to
  // cover every match once, in the order a single page would list them.
  const all = emailsOf((await call('/contacts?q=an&limit=10')).body);
  t.same([...all].sort(), ['Anna@Example.com', 'an%y@example.com', 'an_x@example.com', 'anne@example.com'].sort());
  const first = await call('/contacts?q=an&limit=2');
  const rest = await call(`/contacts?q=an&limit=10&after=${first.body.data[1].id}`);
  t.same([...emailsOf(first.body), ...emailsOf(rest.body)], all, 'two pages, the same order, nothing twice');
  const back = await call(`/contacts?q=an&limit=10&before=${rest.body.data[0].id}`);
  t.same(emailsOf(back.body), emailsOf(first.body), 'before walks back');
  const ghost = await call('/contacts?q=an&after=0190b2c4-0000-7000-8000-000000000000');
  t.same(ghost.body.data, [], 'an unknown cursor gives an empty page');
});

t.test('refusals', async (t) => {
  errorShape(t, await call('/contacts?q=%20%20'), 422, 'invalid_parameter');
  errorShape(t, await call(`/contacts?q=${'a'.repeat(321)}`), 422, 'invalid_parameter');
  const segment = await request(app.url, '/segments', { method: 'POST', token: team.token, body: { name: 'S' } });
  errorShape(t, await call(`/contacts?q=an&segment_id=${segment.body.id}`), 422, 'invalid_parameter');
});
