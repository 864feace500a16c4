import t from 'tap';
import { newId } from '../../../lib/ids.js';
import { errorShape, request } from '../../helpers/http.js';
import { declared } from '../../helpers/declared-schema.js';
import { startTestApp } from '../../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });

t.test('create, retrieve by id and by name, list, update the schema, delete', async (t) => {
  const team = await app.createTeam();
  const created = await call(team, 'POST', '/events', {
    name: 'user.signed_up',
    schema: { plan: 'string', seats: 'number', trial: 'boolean', ends: 'date' },
  });
  t.equal(created.status, 201);
  t.same(created.body, { object: 'event', id: created.body.id });
  declared(t, 'POST', '/events', created);
  const id = created.body.id as string;

  const byId = await call(team, 'GET', `/events/${id}`);
  t.equal(byId.status, 200);
  t.same(Object.keys(byId.body).sort(), ['created_at', 'id', 'name', 'object', 'schema', 'updated_at']);
  t.match(byId.body, {
    object: 'event',
    id,
    name: 'user.signed_up',
    schema: { plan: 'string', seats: 'number', trial: 'boolean', ends: 'date' },
    created_at: String,
    updated_at: null,
  });
  t.ok(Date.parse(byId.body.created_at) > 0, 'created_at is an ISO timestamp');
  declared(t, 'GET', '/events/:identifier', byId);
  t.same((await call(team, 'GET', '/events/user.signed_up')).body, byId.body, 'by name: the same');
  t.same((await call(team, 'GET', `/events/${id.toUpperCase()}`)).body, byId.body, 'an id in upper case');
  t.same((await call(team, 'GET', `/api/v1/events/${id}`)).body, byId.body, 'on the /api/v1 base');

  const bare = await call(team, 'POST', '/events', { name: 'order.placed' });
  t.equal(bare.status, 201);
  t.equal((await call(team, 'GET', '/events/order.placed')).body.schema, null, 'schema null when none');
  const nulled = await call(team, 'POST', '/events', { name: 'order.shipped', schema: null });
  t.equal(nulled.status, 201);

  const list = await call(team, 'GET', '/events');
  t.equal(list.status, 200);
  declared(t, 'GET', '/events', list);
  t.same(list.body.object, 'list');
  t.equal(list.body.has_more, false);
  t.same(
    list.body.data.map((e: { name: string }) => e.name),
    ['order.shipped', 'order.placed', 'user.signed_up'],
    'newest first',
  );
  t.same(list.body.data[2], {
    id,
    name: 'user.signed_up',
    schema: byId.body.schema,
    created_at: byId.body.created_at,
    updated_at: null,
  });

  const updated = await call(team, 'PATCH', '/events/user.signed_up', { schema: { plan: 'string' } });
  t.equal(updated.status, 200);
  t.same(updated.body, { object: 'event', id });
  declared(t, 'PATCH', '/events/:identifier', updated);
  const after = (await call(team, 'GET', `/events/${id}`)).body;
  t.same(after.schema, { plan: 'string' }, 'replaced, never merged');
  t.type(after.updated_at, 'string', 'updated_at set by the update');
  t.ok(Date.parse(after.updated_at) >= Date.parse(after.created_at));
  t.equal(after.name, 'user.signed_up');
  await call(team, 'PATCH', `/events/${id}`, { schema: null });
  t.equal((await call(team, 'GET', `/events/${id}`)).body.schema, null, 'null clears');
  t.equal(
    (await call(team, 'PATCH', `/events/${id}`, { schema: { a: 'date' }, name: 'user.signed_up' })).status,
    200,
    'the same name in the body is no change',
  );

  const removed = await call(team, 'DELETE', `/events/${id}`);
  t.equal(removed.status, 200);
  t.same(removed.body, { object: 'event', id, deleted: true });
  declared(t, 'DELETE', '/events/:identifier', removed);
  errorShape(t, await call(team, 'GET', `/events/${id}`), 404, 'not_found');
  errorShape(t, await call(team, 'GET', '/events/user.signed_up'), 404, 'not_found');
  errorShape(t, await call(team, 'PATCH', `/events/${id}`, { schema: null }), 404, 'not_found');
  errorShape(t, await call(team, 'DELETE', `/events/${id}`), 404, 'not_found');
  t.same(
    (await call(team, 'GET', '/events')).body.data.map((e: { name: string }) => e.name),
    ['order.shipped', 'order.placed'],
    'gone from the list',
  );
});

t.test('soft delete frees the name; a new definition of it is a new id', async (t) => {
  const team = await app.createTeam();
  const first = (await call(team, 'POST', '/events', { name: 'reused', schema: { a: 'string' } })).body.id;
  errorShape(t, await call(team, 'POST', '/events', { name: 'reused' }), 422, 'validation_error');
  await call(team, 'DELETE', '/events/reused');
  const second = await call(team, 'POST', '/events', { name: 'reused', schema: { b: 'number' } });
  t.equal(second.status, 201);
  t.not(second.body.id, first);
  t.match((await call(team, 'GET', '/events/reused')).body, { id: second.body.id, schema: { b: 'number' } });
  errorShape(t, await call(team, 'GET', `/events/${first}`), 404, 'not_found');
  const rows = await app.runtime.db.knex('custom_event_definitions').where({ team_id: team.teamId }).orderBy('id');
  t.equal(rows.length, 2, 'the deleted row stays');
  t.ok(rows[0].deleted_at, 'marked deleted');
  t.equal(rows[0].live_name, null, 'its name released');
});

t.test('a duplicate live name is 422 validation_error; names are per team', async (t) => {
  const team = await app.createTeam();
  const other = await app.createTeam();
  await call(team, 'POST', '/events', { name: 'dup' });
  const dup = await call(team, 'POST', '/events', { name: 'dup', schema: { x: 'string' } });
  const body = errorShape(t, dup, 422, 'validation_error');
  t.match(body.errors, [{ path: 'name' }]);
  t.equal((await call(other, 'POST', '/events', { name: 'dup' })).status, 201, 'another team may use it');
  // Concurrent creates of one name: exactly one wins.
  const racing = await Promise.all(
    Array.from({ length: 6 }, () => call(team, 'POST', '/events', { name: 'raced', schema: null })),
  );
  t.same(racing.map((r) => r.status).sort(), [201, 422, 422, 422, 422, 422]);
});

const NAME_CASES: Array<[string, unknown, number, string?]> = [
  ['letters', 'signup', 201],
  ['dots, underscores, hyphens, digits', 'a1.b_2-c', 201],
  ['one letter', 'a', 201],
  ['100 characters', 'a'.repeat(100), 201],
  ['a hex word that is not a UUID', 'deadbeef-dead', 201],
  ['101 characters', 'a'.repeat(101), 422, 'validation_error'],
  ['upper case', 'SignUp', 422, 'validation_error'],
  ['starts with a digit', '1signup', 422, 'validation_error'],
  ['starts with a dot', '.signup', 422, 'validation_error'],
  ['starts with an underscore', '_signup', 422, 'validation_error'],
  ['starts with a hyphen', '-signup', 422, 'validation_error'],
  ['a space', 'sign up', 422, 'validation_error'],
  ['a colon', 'sign:up', 422, 'validation_error'],
  ['a slash', 'sign/up', 422, 'validation_error'],
  ['non-ASCII letters', 'inscrição', 422, 'validation_error'],
  ['empty', '', 422, 'validation_error'],
  ['UUID-shaped (v7)', 'a199a0a0-0000-7000-8000-000000000001', 422, 'validation_error'],
  ['UUID-shaped (v4, letters first)', 'abcdef12-3456-4789-abcd-ef0123456789', 422, 'validation_error'],
  ['UUID-shaped (any version digits)', 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa', 422, 'validation_error'],
  ['the reserved prefix', 'svc:contact.created', 422, 'validation_error'],
  ['the reserved prefix in upper case', 'SVC:custom', 422, 'validation_error'],
  ['the reserved prefix alone', 'svc:', 422, 'validation_error'],
  ['not a string', 42, 400, 'validation_error'],
  ['null', null, 400, 'validation_error'],
];

t.test('name rules, table-driven', async (t) => {
  const team = await app.createTeam();
  for (const [label, name, status, errorName] of NAME_CASES) {
    const res = await call(team, 'POST', '/events', { name });
    if (status === 201) {
      t.equal(res.status, 201, `${label}: accepted`);
      t.equal((await call(team, 'GET', `/events/${res.body.id}`)).body.name, name, `${label}: kept as given`);
      continue;
    }
    const body = errorShape(t, res, status, errorName!);
    t.match(body.errors, [{ path: 'name' }], `${label}: the error names the field`);
  }
  const reserved = await call(team, 'POST', '/events', { name: 'svc:email.sent' });
  t.match(reserved.body.errors, [{ path: 'name', message: /reserved/ }], 'the reserved prefix is named as such');
  const missing = errorShape(t, await call(team, 'POST', '/events', { schema: null }), 422, 'missing_required_field');
  t.match(missing.errors, [{ path: 'name' }]);
  errorShape(t, await call(team, 'POST', '/events', { name: 'extra', color: 'red' }), 400, 'validation_error');
});

const fiftyKeys = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'string']));
const SCHEMA_CASES: Array<[string, unknown, number, string?, string?]> = [
  ['every type', { s: 'string', n: 'number', b: 'boolean', d: 'date' }, 201],
  ['empty object', {}, 201],
  ['null', null, 201],
  ['50 keys', fiftyKeys, 201],
  ['keys with any characters', { 'Order ID': 'string', 'a.b': 'number', é: 'boolean' }, 201],
  ['51 keys', { ...fiftyKeys, k50: 'number' }, 422, 'validation_error', 'schema'],
  ['an unknown type', { a: 'integer' }, 422, 'validation_error', 'schema.a'],
  ['a type in upper case', { a: 'String' }, 422, 'validation_error', 'schema.a'],
  ['a nested object', { a: { type: 'string' } }, 422, 'validation_error', 'schema.a'],
  ['a type that is not a string', { a: 1 }, 422, 'validation_error', 'schema.a'],
  ['an empty key', { '': 'string' }, 422, 'validation_error', 'schema.'],
  ['a key over 100 characters', { ['k'.repeat(101)]: 'string' }, 422, 'validation_error'],
  ['an array', ['string'], 400, 'validation_error', 'schema'],
  ['a string', 'string', 400, 'validation_error', 'schema'],
  ['a number', 5, 400, 'validation_error', 'schema'],
];

t.test('schema rules on create and update, table-driven', async (t) => {
  const team = await app.createTeam();
  const target = (await call(team, 'POST', '/events', { name: 'target', schema: { keep: 'string' } })).body.id;
  let n = 0;
  for (const [label, schema, status, errorName, path] of SCHEMA_CASES) {
    const created = await call(team, 'POST', '/events', { name: `schema${n++}`, schema });
    const updated = await call(team, 'PATCH', `/events/${target}`, { schema });
    if (status === 201) {
      t.equal(created.status, 201, `${label}: create accepts`);
      t.same((await call(team, 'GET', `/events/${created.body.id}`)).body.schema, schema, `${label}: kept`);
      t.equal(updated.status, 200, `${label}: update accepts`);
      t.same((await call(team, 'GET', `/events/${target}`)).body.schema, schema, `${label}: replaced`);
      continue;
    }
    for (const res of [created, updated]) {
      const body = errorShape(t, res, status, errorName!);
      if (path) t.match(body.errors, [{ path }], `${label}: names ${path}`);
    }
  }
  const twoBad = errorShape(
    t,
    await call(team, 'POST', '/events', { name: 'two.bad', schema: { a: 'int', b: 'float', c: 'string' } }),
    422,
    'validation_error',
  );
  t.same(
    twoBad.errors!.map((e) => e.path),
    ['schema.a', 'schema.b'],
    'one entry per offending key',
  );
});

t.test('update refusals: schema required, the name cannot change, unknown fields', async (t) => {
  const team = await app.createTeam();
  const id = (await call(team, 'POST', '/events', { name: 'fixed', schema: { a: 'string' } })).body.id;
  const missing = errorShape(t, await call(team, 'PATCH', `/events/${id}`, {}), 422, 'missing_required_field');
  t.match(missing.errors, [{ path: 'schema' }]);
  const renamed = errorShape(
    t,
    await call(team, 'PATCH', `/events/${id}`, { name: 'other', schema: null }),
    422,
    'validation_error',
  );
  t.match(renamed.errors, [{ path: 'name' }]);
  t.same((await call(team, 'GET', `/events/${id}`)).body.schema, { a: 'string' }, 'nothing changed');
  errorShape(t, await call(team, 'PATCH', `/events/${id}`, { schema: null, color: 1 }), 400, 'validation_error');
  errorShape(t, await call(team, 'PATCH', '/events/nothing.here', { schema: null }), 404, 'not_found');
});

t.test('identifiers that name nothing are 404, whatever their shape', async (t) => {
  const team = await app.createTeam();
  await call(team, 'POST', '/events', { name: 'signup' });
  const random = await call(team, 'GET', `/events/${newId()}`);
  errorShape(t, random, 404, 'not_found');
  for (const identifier of [
    'SIGNUP',
    'signup%20',
    'svc%3Acontact.created',
    'x'.repeat(150),
    '00000000-0000-0000-0000-000000000000',
  ]) {
    const res = await call(team, 'GET', `/events/${identifier}`);
    errorShape(t, res, 404, 'not_found');
    t.equal(res.body.message, random.body.message, `${identifier}: the same answer as a random id`);
  }
  errorShape(t, await call(team, 'GET', `/events/${'x'.repeat(201)}`), 422, 'invalid_parameter');
});

t.test('list: pagination, search, refusals', async (t) => {
  const team = await app.createTeam();
  const names = ['alpha.one', 'beta.two', 'gamma.three', 'alpha_four', 'delta-five'];
  for (const name of names) t.equal((await call(team, 'POST', '/events', { name })).status, 201);
  const newestFirst = [...names].reverse();
  const first = (await call(team, 'GET', '/events?limit=2')).body;
  t.equal(first.has_more, true);
  t.same(
    first.data.map((e: { name: string }) => e.name),
    newestFirst.slice(0, 2),
  );
  const second = (await call(team, 'GET', `/events?limit=2&after=${first.data[1].id}`)).body;
  t.same(
    second.data.map((e: { name: string }) => e.name),
    newestFirst.slice(2, 4),
  );
  const third = (await call(team, 'GET', `/events?limit=2&after=${second.data[1].id}`)).body;
  t.equal(third.has_more, false);
  t.same(
    third.data.map((e: { name: string }) => e.name),
    newestFirst.slice(4),
  );
  const back = (await call(team, 'GET', `/events?limit=2&before=${second.data[0].id}`)).body;
  t.same(
    back.data.map((e: { name: string }) => e.name),
    newestFirst.slice(0, 2),
  );
  const search = async (q: string) =>
    (await call(team, 'GET', `/events?search=${encodeURIComponent(q)}`)).body.data.map((e: { name: string }) => e.name);
  t.same(await search('alpha'), ['alpha_four', 'alpha.one']);
  t.same(await search('ALPHA'), ['alpha_four', 'alpha.one'], 'case-insensitive');
  t.same(await search('_'), ['alpha_four'], '_ is an ordinary character');
  t.same(await search('%'), [], '% is an ordinary character');
  t.same(await search('.t'), ['gamma.three', 'beta.two']);
  errorShape(t, await call(team, 'GET', '/events?search='), 422, 'invalid_parameter');
  errorShape(t, await call(team, 'GET', '/events?search=%20%20'), 422, 'invalid_parameter');
  errorShape(t, await call(team, 'GET', `/events?search=${'a'.repeat(201)}`), 422, 'invalid_parameter');
  t.equal((await call(team, 'GET', `/events?search=${'a'.repeat(200)}`)).status, 200, '200 characters');
  errorShape(t, await call(team, 'GET', '/events?limit=0'), 422, 'invalid_parameter');
  errorShape(t, await call(team, 'GET', '/events?limit=101'), 422, 'invalid_parameter');
  errorShape(t, await call(team, 'GET', '/events?after=x'), 422, 'invalid_parameter');
  errorShape(
    t,
    await call(team, 'GET', `/events?after=${first.data[0].id}&before=${first.data[1].id}`),
    422,
    'invalid_parameter',
  );
  errorShape(t, await call(team, 'GET', '/events?color=red'), 422, 'invalid_parameter');
});

t.test('credentials: definitions need full_access; every route needs a key', async (t) => {
  const team = await app.createTeam();
  await call(team, 'POST', '/events', { name: 'signup' });
  const sending = await app.runtime.services.apiKeys.create(team.teamId, {
    name: 'sending',
    permission: 'sending_access',
  });
  const restricted = { teamId: team.teamId, token: sending.token };
  errorShape(t, await call(restricted, 'POST', '/events', { name: 'nope' }), 401, 'restricted_api_key');
  errorShape(t, await call(restricted, 'GET', '/events'), 401, 'restricted_api_key');
  errorShape(t, await call(restricted, 'GET', '/events/signup'), 401, 'restricted_api_key');
  errorShape(t, await call(restricted, 'PATCH', '/events/signup', { schema: null }), 401, 'restricted_api_key');
  errorShape(t, await call(restricted, 'DELETE', '/events/signup'), 401, 'restricted_api_key');
  for (const [method, path] of [
    ['POST', '/events'],
    ['GET', '/events'],
    ['POST', '/events/send'],
    ['GET', '/events/signup'],
    ['PATCH', '/events/signup'],
    ['DELETE', '/events/signup'],
  ] as const) {
    const body = method === 'GET' || method === 'DELETE' ? undefined : {};
    errorShape(t, await request(app.url, path, { method, body }), 401, 'missing_api_key');
    errorShape(
      t,
      await request(app.url, path, { method, token: 'svc_notarealkeyatall000000000000', body }),
      401,
      'invalid_api_key',
    );
  }
  errorShape(t, await call(team, 'PUT', '/events/signup', {}), 405, 'method_not_allowed');
  t.equal((await call(team, 'GET', '/events/signup')).status, 200, 'untouched');
});

t.test("another team's definition is 404 by id and by name, on every route", async (t) => {
  const owner = await app.createTeam();
  const attacker = await app.createTeam();
  const id = (await call(owner, 'POST', '/events', { name: 'private.thing', schema: { a: 'string' } })).body.id;
  for (const identifier of [id, 'private.thing']) {
    const random = await call(attacker, 'GET', `/events/${newId()}`);
    const foreign = await call(attacker, 'GET', `/events/${identifier}`);
    errorShape(t, foreign, 404, 'not_found');
    t.equal(foreign.text, random.text, 'byte-identical to a random id');
    errorShape(t, await call(attacker, 'PATCH', `/events/${identifier}`, { schema: null }), 404, 'not_found');
    errorShape(t, await call(attacker, 'DELETE', `/events/${identifier}`), 404, 'not_found');
  }
  t.same((await call(attacker, 'GET', '/events')).body.data, [], 'not listed');
  t.same((await call(owner, 'GET', `/events/${id}`)).body.schema, { a: 'string' }, 'the owner’s is untouched');
});
