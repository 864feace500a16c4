import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());

const post = (token: string, path: string, body: unknown) => request(app.url, path, { method: 'POST', token, body });

t.test('add, get by id or address (any case), remove; events recorded', async (t) => {
  const team = await app.createTeam();
  const added = await post(team.token, '/suppressions', { email: 'User@Example.com' });
  t.equal(added.status, 201);
  t.same(Object.keys(added.body).sort(), ['id', 'object']);
  t.equal(added.body.object, 'suppression');
  const byId = await request(app.url, `/suppressions/${added.body.id}`, { token: team.token });
  t.match(byId.body, {
    object: 'suppression',
    id: added.body.id,
    email: 'User@Example.com',
    origin: 'manual',
    source_id: null,
    created_at: String,
  });
  const byAddress = await request(app.url, '/suppressions/USER@example.COM', { token: team.token });
  t.equal(byAddress.body.id, added.body.id, 'matched case-insensitively');
  const again = await post(team.token, '/suppressions', { email: 'user@example.com' });
  t.equal(again.body.id, added.body.id, 'adding again leaves the entry as it is');
  const removed = await request(app.url, '/suppressions/user@EXAMPLE.com', { method: 'DELETE', token: team.token });
  t.same(removed.body, { object: 'suppression', id: added.body.id, deleted: true });
  errorShape(t, await request(app.url, `/suppressions/${added.body.id}`, { token: team.token }), 404, 'not_found');
  const events = (await app.runtime.services.eventLog.list(team.teamId))
    .map((e) => `${e.type}:${e.data.email}`)
    .reverse();
  t.same(events, ['suppression.added:User@Example.com', 'suppression.removed:User@Example.com']);
});

t.test('batch add leaves existing entries; batch remove skips unknown ones', async (t) => {
  const team = await app.createTeam();
  const first = (await post(team.token, '/suppressions', { email: 'a@example.com' })).body.id;
  await app.runtime.services.suppressions.add(
    team.teamId,
    'bounced@example.com',
    'bounce',
    '0199a0a0-0000-7000-8000-0000000000aa',
  );
  const batch = await post(team.token, '/suppressions/batch/add', {
    emails: ['A@example.com', 'b@example.com', 'c@example.com', 'bounced@example.com'],
  });
  t.equal(batch.status, 201);
  t.equal(batch.body.data.length, 4);
  t.equal(batch.body.data[0].id, first, 'existing entry returned as it is');
  t.ok(batch.body.data.every((d: { object: string }) => d.object === 'suppression'));
  t.equal(
    (await request(app.url, '/suppressions/bounced@example.com', { token: team.token })).body.origin,
    'bounce',
    'origin unchanged',
  );
  t.equal(
    (await request(app.url, '/suppressions/bounced@example.com', { token: team.token })).body.source_id,
    '0199a0a0-0000-7000-8000-0000000000aa',
  );

  const byEmails = await post(team.token, '/suppressions/batch/remove', {
    emails: ['b@example.com', 'never@example.com'],
  });
  t.equal(byEmails.status, 200);
  t.same(byEmails.body.data, [{ object: 'suppression', id: batch.body.data[1].id, deleted: true }]);
  const byIds = await post(team.token, '/suppressions/batch/remove', {
    ids: [batch.body.data[2].id, '0199a0a0-0000-7000-8000-000000000000'],
  });
  t.same(
    byIds.body.data.map((d: { id: string }) => d.id),
    [batch.body.data[2].id],
  );
  const events = await app.runtime.services.eventLog.list(team.teamId);
  t.equal(events.filter((e) => e.type === 'suppression.added').length, 4, 'one added event per new address');
  t.equal(events.filter((e) => e.type === 'suppression.removed').length, 2);
});

t.test('list: newest first, origin, search, dates, cursors', async (t) => {
  const team = await app.createTeam();
  const ids: string[] = [];
  for (const email of ['one@example.com', 'two_x@example.com', '100%@example.com', 'four@other.example'])
    ids.push((await post(team.token, '/suppressions', { email })).body.id);
  await app.runtime.services.suppressions.add(team.teamId, 'complainer@example.com', 'complaint');
  const all = (await request(app.url, '/suppressions', { token: team.token })).body;
  t.equal(all.object, 'list');
  t.same(
    all.data.map((s: { email: string }) => s.email),
    ['complainer@example.com', 'four@other.example', '100%@example.com', 'two_x@example.com', 'one@example.com'],
  );
  t.same(
    (await request(app.url, '/suppressions?origin=complaint', { token: team.token })).body.data.map(
      (s: { email: string }) => s.email,
    ),
    ['complainer@example.com'],
  );
  t.same(
    (await request(app.url, '/suppressions?search=OTHER', { token: team.token })).body.data.map(
      (s: { email: string }) => s.email,
    ),
    ['four@other.example'],
  );
  t.same(
    (await request(app.url, '/suppressions?search=_', { token: team.token })).body.data.map(
      (s: { email: string }) => s.email,
    ),
    ['two_x@example.com'],
    '_ is literal',
  );
  t.same(
    (await request(app.url, '/suppressions?search=%25', { token: team.token })).body.data.map(
      (s: { email: string }) => s.email,
    ),
    ['100%@example.com'],
    '% is literal',
  );
  const today = new Date().toISOString().slice(0, 10);
  t.equal(
    (await request(app.url, `/suppressions?start_date=${today}&end_date=${today}`, { token: team.token })).body.data
      .length,
    5,
    'a date is the whole day, inclusive',
  );
  t.equal((await request(app.url, '/suppressions?end_date=2020-01-01', { token: team.token })).body.data.length, 0);
  const page = await request(app.url, `/suppressions?limit=2&after=${ids[3]}`, { token: team.token });
  t.same(
    page.body.data.map((s: { id: string }) => s.id),
    [ids[2], ids[1]],
  );
  t.equal(page.body.has_more, true);
});

t.test('refusals', async (t) => {
  const team = await app.createTeam();
  errorShape(t, await post(team.token, '/suppressions', {}), 422, 'missing_required_field');
  for (const email of [
    'not-an-address',
    'a@b',
    'two@@example.com',
    'sp ace@example.com',
    `${'x'.repeat(65)}@example.com`,
  ]) {
    const body = errorShape(t, await post(team.token, '/suppressions', { email }), 400, 'validation_error');
    t.equal(body.errors?.[0]?.path, 'email', `refused: ${email}`);
  }
  errorShape(
    t,
    await post(team.token, '/suppressions', { email: 'a@example.com', origin: 'bounce' }),
    400,
    'validation_error',
  );
  errorShape(t, await post(team.token, '/suppressions/batch/add', {}), 422, 'missing_required_field');
  errorShape(t, await post(team.token, '/suppressions/batch/add', { emails: [] }), 400, 'validation_error');
  const many = Array.from({ length: 101 }, (_, i) => `u${i}@example.com`);
  errorShape(t, await post(team.token, '/suppressions/batch/add', { emails: many }), 400, 'validation_error');
  const bad = errorShape(
    t,
    await post(team.token, '/suppressions/batch/add', { emails: ['ok@example.com', 'bad'] }),
    400,
    'validation_error',
  );
  t.equal(bad.errors?.[0]?.path, 'emails.1');
  t.equal(
    (await request(app.url, '/suppressions/ok@example.com', { token: team.token })).status,
    404,
    'a refused batch adds nothing',
  );
  errorShape(t, await post(team.token, '/suppressions/batch/remove', {}), 422, 'invalid_parameter');
  errorShape(
    t,
    await post(team.token, '/suppressions/batch/remove', {
      emails: ['a@example.com'],
      ids: ['0199a0a0-0000-7000-8000-000000000000'],
    }),
    422,
    'invalid_parameter',
  );
  errorShape(t, await post(team.token, '/suppressions/batch/remove', { ids: ['nope'] }), 400, 'validation_error');
  errorShape(t, await post(team.token, '/suppressions/batch/remove', { emails: many }), 400, 'validation_error');
  for (const query of [
    'search=%20',
    'origin=spam',
    'start_date=yesterday',
    'start_date=2026-02-01&end_date=2026-01-01',
    'limit=0',
  ]) {
    errorShape(t, await request(app.url, `/suppressions?${query}`, { token: team.token }), 422, 'invalid_parameter');
  }
  errorShape(t, await request(app.url, '/suppressions/nobody@example.com', { token: team.token }), 404, 'not_found');
  errorShape(
    t,
    await request(app.url, '/suppressions/neither-id-nor-address', { token: team.token }),
    404,
    'not_found',
  );
  const sending = await app.runtime.services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });
  errorShape(t, await request(app.url, '/suppressions', { token: sending.token }), 401, 'restricted_api_key');
});

t.test("another team's suppression is 404 by id and by address, like a random one", async (t) => {
  const a = await app.createTeam();
  const b = await app.createTeam();
  const id = (await post(a.token, '/suppressions', { email: 'private@example.com' })).body.id;
  const byId = await request(app.url, `/suppressions/${id}`, { token: b.token });
  const random = await request(app.url, '/suppressions/0199a0a0-0000-7000-8000-000000000000', { token: b.token });
  errorShape(t, byId, 404, 'not_found');
  t.equal(byId.text, random.text);
  const byAddress = await request(app.url, '/suppressions/private@example.com', { method: 'DELETE', token: b.token });
  t.equal(
    byAddress.text,
    (await request(app.url, '/suppressions/unknown@example.com', { method: 'DELETE', token: b.token })).text,
  );
  t.equal((await request(app.url, `/suppressions/${id}`, { token: a.token })).status, 200, 'still there for its team');
});

t.test('the send path asks which recipients are suppressed', async (t) => {
  const team = await app.createTeam();
  await app.runtime.services.suppressions.addMany(team.teamId, ['x@example.com', 'Y@Example.com']);
  const suppressed = await app.runtime.services.suppressions.suppressedAmong(team.teamId, [
    'X@example.com',
    'y@example.com',
    'z@example.com',
  ]);
  t.same([...suppressed].sort(), ['x@example.com', 'y@example.com']);
});

t.test('the resend SDK: suppressions add/list/get/remove and batch', async (t) => {
  const team = await app.createTeam();
  const resend = new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never);
  const added = await resend.suppressions.add({ email: 'sdk@example.com' });
  t.equal(added.error, null);
  const id = added.data!.id;
  t.match((await resend.suppressions.get('sdk@example.com')).data, { id, email: 'sdk@example.com', origin: 'manual' });
  t.ok((await resend.suppressions.list()).data!.data.some((s) => s.id === id));
  const batch = await resend.suppressions.batch.add({ emails: ['b1@example.com', 'b2@example.com'] });
  t.equal(batch.error, null);
  const removedBatch = await resend.suppressions.batch.remove({ emails: ['b1@example.com'] });
  t.equal(removedBatch.error, null);
  t.match((await resend.suppressions.remove(id)).data, { id, deleted: true });
});
