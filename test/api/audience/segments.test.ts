import t from 'tap';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((c) => c.id);

t.test('a filtered segment: members by filter or by hand, metrics, preview, rename, delete', async (t) => {
  const team = await app.createTeam();
  await call(team, 'POST', '/contact-properties', { key: 'seats', type: 'number' });
  const make = async (email: string, body: Record<string, unknown> = {}) =>
    (await call(team, 'POST', '/contacts', { email, ...body })).body.id as string;
  const big = await make('big@corp.test', { properties: { seats: 50 } });
  const bigOut = await make('bigout@corp.test', { properties: { seats: 80 }, unsubscribed: true });
  const small = await make('small@corp.test', { properties: { seats: 2 } });
  const none = await make('none@other.test');
  const created = await call(team, 'POST', '/segments', {
    name: 'Large accounts',
    filter: { all: [{ field: 'properties.seats', op: 'gte', value: 10 }] },
  });
  t.equal(created.status, 201);
  t.same(created.body, { object: 'segment', id: created.body.id });
  const id = created.body.id;
  const got = await call(team, 'GET', `/segments/${id}`);
  t.match(got.body, {
    object: 'segment',
    id,
    name: 'Large accounts',
    filter: { all: [{ field: 'properties.seats', op: 'gte', value: 10 }] },
    created_at: String,
  });
  t.same(
    ids((await call(team, 'GET', `/segments/${id}/contacts`)).body),
    [bigOut, big],
    'filter members, newest first',
  );
  await call(team, 'POST', `/contacts/${none}/segments/${id}`);
  const members = await call(team, 'GET', `/segments/${id}/contacts`);
  t.same(ids(members.body), [none, bigOut, big], 'plus the one added by hand');
  t.equal(members.body.has_more, false);
  t.same(
    ids((await call(team, 'GET', `/contacts?segment_id=${id}`)).body),
    [none, bigOut, big],
    'GET /contacts?segment_id',
  );
  const metrics = await call(team, 'GET', `/segments/${id}/metrics`);
  t.same(metrics.body, { object: 'segment_metrics', segment_id: id, contacts: 3, subscribed: 2, unsubscribed: 1 });
  const preview = await call(team, 'POST', '/segments/preview', {
    filter: {
      any: [
        { field: 'properties.seats', op: 'lt', value: 10 },
        { field: 'email', op: 'contains', value: 'other' },
      ],
    },
  });
  t.same(preview.body, { object: 'segment_preview', contacts: 2, subscribed: 2, unsubscribed: 0 });
  t.ok(small, 'the small account is the preview’s other match');
  await call(team, 'DELETE', `/contacts/${big}`);
  t.same(ids((await call(team, 'GET', `/segments/${id}/contacts`)).body), [none, bigOut], 'erased contacts are gone');
  const renamed = await call(team, 'PATCH', `/segments/${id}`, { name: 'Big ones' });
  t.same(renamed.body, { object: 'segment', id });
  t.equal((await call(team, 'GET', `/segments/${id}`)).body.name, 'Big ones');
  const list = await call(team, 'GET', '/segments');
  t.same(list.body.data, [{ id, name: 'Big ones', created_at: got.body.created_at }], 'list items without filter');
  const removed = await call(team, 'DELETE', `/segments/${id}`);
  t.same(removed.body, { object: 'segment', id, deleted: true });
  errorShape(t, await call(team, 'GET', `/segments/${id}`), 404, 'not_found');
  errorShape(t, await call(team, 'GET', `/segments/${id}/contacts`), 404, 'not_found');
});

t.test('explicit-only segment (filter null), topic conditions', async (t) => {
  const team = await app.createTeam();
  const topic = (await call(team, 'POST', '/topics', { name: 'News', default_subscription: 'opt_out' })).body.id;
  const a = (
    await call(team, 'POST', '/contacts', { email: 'a@x.test', topics: [{ id: topic, subscription: 'opt_in' }] })
  ).body.id;
  await call(team, 'POST', '/contacts', { email: 'b@x.test' });
  const manual = (await call(team, 'POST', '/segments', { name: 'Manual', filter: null })).body.id;
  t.same((await call(team, 'GET', `/segments/${manual}`)).body.filter, null);
  t.same(ids((await call(team, 'GET', `/segments/${manual}/contacts`)).body), [], 'nobody until added');
  const subscribers = await call(team, 'POST', '/segments', {
    name: 'News readers',
    filter: { all: [{ topic, subscription: 'opt_in' }] },
  });
  t.same(ids((await call(team, 'GET', `/segments/${subscribers.body.id}/contacts`)).body), [a]);
});

t.test('filter errors: one errors[] entry per bad condition; a filter on PATCH is refused', async (t) => {
  const team = await app.createTeam();
  await call(team, 'POST', '/contact-properties', { key: 'plan', type: 'string' });
  const bad = await call(team, 'POST', '/segments', {
    name: 'Bad',
    filter: {
      all: [
        { field: 'properties.unknown', op: 'eq', value: 'x' },
        { field: 'first_name', op: 'gt', value: 'a' },
        { field: 'email', op: 'eq', value: 'fine@example.com' },
        { any: [{ field: 'unsubscribed', op: 'eq', value: 'yes' }] },
      ],
    },
  });
  errorShape(t, bad, 422, 'validation_error');
  t.equal(bad.body.errors.length, 3, 'three bad conditions, three entries');
  t.same(
    bad.body.errors.map((e: { path: string }) => e.path),
    ['filter.all[0]', 'filter.all[1]', 'filter.all[3].any[0]'],
  );
  t.match(bad.body.errors[0].message, /unknown/);
  t.equal((await call(team, 'GET', '/segments')).body.data.length, 0, 'nothing created');
  const deep = await call(team, 'POST', '/segments', {
    name: 'Deep',
    filter: { all: [{ any: [{ not: [{ all: [{ field: 'email', op: 'eq', value: 'a@b.c' }] }] }] }] },
  });
  errorShape(t, deep, 422, 'validation_error');
  t.match(deep.body.errors[0].message, /3 levels/);
  const many = await call(team, 'POST', '/segments', {
    name: 'Many',
    filter: { any: Array.from({ length: 21 }, (_, i) => ({ field: 'email', op: 'eq', value: `${i}@x.test` })) },
  });
  errorShape(t, many, 422, 'validation_error');
  t.match(many.body.errors[0].message, /20 conditions/);
  const ok = (await call(team, 'POST', '/segments', { name: 'Fine', filter: null })).body.id;
  const patch = await call(team, 'PATCH', `/segments/${ok}`, { name: 'Fine', filter: null });
  errorShape(t, patch, 422, 'invalid_parameter');
  t.match(patch.body.errors, [{ path: 'filter' }]);
  errorShape(t, await call(team, 'PATCH', `/segments/${ok}`, {}), 422, 'missing_required_field');
  errorShape(t, await call(team, 'POST', '/segments', { name: 'fine', filter: null }), 422, 'invalid_parameter');
  errorShape(t, await call(team, 'POST', '/segments', { name: 'x'.repeat(201) }), 400, 'validation_error');
  errorShape(t, await call(team, 'POST', '/segments/preview', {}), 422, 'missing_required_field');
});

t.test('deprecated /audiences/{id}/contacts aliases act on the segment’s contacts', async (t) => {
  const team = await app.createTeam();
  const audience = (await call(team, 'POST', '/segments', { name: 'Old audience', filter: null })).body.id;
  const created = await call(team, 'POST', `/audiences/${audience}/contacts`, {
    email: 'old@example.com',
    first_name: 'Old',
  });
  t.equal(created.status, 201);
  const id = created.body.id;
  t.same(ids((await call(team, 'GET', `/audiences/${audience}/contacts`)).body), [id], 'added to the segment');
  t.match((await call(team, 'GET', `/audiences/${audience}/contacts/old@example.com`)).body, {
    object: 'contact',
    id,
    first_name: 'Old',
  });
  await call(team, 'PATCH', `/audiences/${audience}/contacts/${id}`, { last_name: 'Timer' });
  t.equal((await call(team, 'GET', `/contacts/${id}`)).body.last_name, 'Timer');
  const removed = await call(team, 'DELETE', `/audiences/${audience}/contacts/${id}`);
  t.same(removed.body, { object: 'contact', id, contact: id, deleted: true });
  errorShape(t, await call(team, 'GET', `/audiences/0199a0a0-0000-7000-8000-00000000ffff/contacts`), 404, 'not_found');
});
