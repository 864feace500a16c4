import t from 'tap';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });

t.test('contact properties: create, list, retrieve by id or key, update the fallback, delete', async (t) => {
  const team = await app.createTeam();
  const created = await call(team, 'POST', '/contact-properties', {
    key: 'plan',
    type: 'string',
    fallback_value: 'free',
  });
  t.equal(created.status, 201);
  t.same(created.body, { object: 'contact_property', id: created.body.id });
  const seats = await call(team, 'POST', '/contact-properties', { key: 'seats', type: 'number', fallback_value: 1 });
  const got = await call(team, 'GET', `/contact-properties/${created.body.id}`);
  t.match(got.body, {
    object: 'contact_property',
    id: created.body.id,
    key: 'plan',
    type: 'string',
    fallback_value: 'free',
    created_at: String,
  });
  t.equal((await call(team, 'GET', '/contact-properties/PLAN')).body.id, created.body.id, 'by key, any case');
  const list = await call(team, 'GET', '/contact-properties');
  t.same(
    list.body.data.map((p: { key: string }) => p.key),
    ['seats', 'plan'],
  );
  t.equal(list.body.has_more, false);
  const updated = await call(team, 'PATCH', `/contact-properties/${seats.body.id}`, { fallback_value: 2 });
  t.same(updated.body, { object: 'contact_property', id: seats.body.id });
  t.equal((await call(team, 'GET', `/contact-properties/${seats.body.id}`)).body.fallback_value, 2);
  await call(team, 'PATCH', `/contact-properties/${seats.body.id}`, { fallback_value: null });
  t.equal((await call(team, 'GET', `/contact-properties/${seats.body.id}`)).body.fallback_value, null, 'cleared');
  const { id: contact } = (await call(team, 'POST', '/contacts', { email: 'a@example.com', properties: { seats: 4 } }))
    .body;
  const removed = await call(team, 'DELETE', `/contact-properties/${seats.body.id}`);
  t.same(removed.body, { object: 'contact_property', id: seats.body.id, deleted: true });
  errorShape(t, await call(team, 'GET', `/contact-properties/${seats.body.id}`), 404, 'not_found');
  t.same((await call(team, 'GET', `/contacts/${contact}`)).body.properties, {}, 'its values went with it');
});

t.test(
  'contact property errors: duplicate key, fallback of the wrong type, key rules, fixed key and type',
  async (t) => {
    const team = await app.createTeam();
    await call(team, 'POST', '/contact-properties', { key: 'plan', type: 'string' });
    const duplicate = await call(team, 'POST', '/contact-properties', { key: 'PLAN', type: 'number' });
    errorShape(t, duplicate, 422, 'invalid_parameter');
    t.match(duplicate.body.errors, [{ path: 'key' }]);
    errorShape(
      t,
      await call(team, 'POST', '/contact-properties', { key: 'age', type: 'number', fallback_value: 'old' }),
      422,
      'invalid_parameter',
    );
    errorShape(
      t,
      await call(team, 'POST', '/contact-properties', { key: 'bad-key', type: 'string' }),
      400,
      'validation_error',
    );
    errorShape(
      t,
      await call(team, 'POST', '/contact-properties', { key: 'k'.repeat(51), type: 'string' }),
      400,
      'validation_error',
    );
    t.equal((await call(team, 'POST', '/contact-properties', { key: 'k'.repeat(50), type: 'string' })).status, 201);
    errorShape(
      t,
      await call(team, 'POST', '/contact-properties', { key: 'flag', type: 'boolean' }),
      400,
      'validation_error',
    );
    errorShape(t, await call(team, 'POST', '/contact-properties', { key: 'x' }), 422, 'missing_required_field');
    const fixed = await call(team, 'PATCH', '/contact-properties/plan', { type: 'number' });
    errorShape(t, fixed, 422, 'invalid_parameter');
    t.match(fixed.body.errors, [{ path: 'type' }]);
    errorShape(
      t,
      await call(team, 'PATCH', '/contact-properties/plan', { fallback_value: 3 }),
      422,
      'invalid_parameter',
    );
  },
);

t.test('a property read by a segment filter is not deleted: 409 resource_locked naming the segment', async (t) => {
  const team = await app.createTeam();
  const plan = (await call(team, 'POST', '/contact-properties', { key: 'plan', type: 'string' })).body.id;
  const segment = (
    await call(team, 'POST', '/segments', {
      name: 'Pro customers',
      filter: { all: [{ field: 'properties.Plan', op: 'eq', value: 'pro' }] },
    })
  ).body.id;
  const refused = await call(team, 'DELETE', `/contact-properties/${plan}`);
  errorShape(t, refused, 409, 'resource_locked');
  t.match(refused.body.message, /Pro customers/);
  t.equal((await call(team, 'GET', `/contact-properties/${plan}`)).status, 200, 'still there');
  await call(team, 'DELETE', `/segments/${segment}`);
  t.equal((await call(team, 'DELETE', `/contact-properties/${plan}`)).status, 200, 'free once the segment is gone');
});

t.test('topics: create, list, retrieve, update, delete; default fixed; names unique among live topics', async (t) => {
  const team = await app.createTeam();
  const created = await call(team, 'POST', '/topics', {
    name: 'Product news',
    default_subscription: 'opt_in',
    description: 'Monthly',
  });
  t.equal(created.status, 201);
  t.same(created.body, { object: 'topic', id: created.body.id });
  const got = await call(team, 'GET', `/topics/${created.body.id}`);
  t.match(got.body, {
    object: 'topic',
    id: created.body.id,
    name: 'Product news',
    description: 'Monthly',
    default_subscription: 'opt_in',
    visibility: 'private',
    created_at: String,
  });
  const duplicate = await call(team, 'POST', '/topics', { name: 'product NEWS', default_subscription: 'opt_out' });
  errorShape(t, duplicate, 422, 'invalid_parameter');
  // The SDK's topics.update sends the id in the body.
  const updated = await call(team, 'PATCH', `/topics/${created.body.id}`, {
    id: created.body.id,
    name: 'News',
    description: null,
    visibility: 'public',
  });
  t.same(updated.body, { object: 'topic', id: created.body.id });
  t.match((await call(team, 'GET', `/topics/${created.body.id}`)).body, {
    name: 'News',
    description: null,
    visibility: 'public',
  });
  const fixed = await call(team, 'PATCH', `/topics/${created.body.id}`, { default_subscription: 'opt_out' });
  errorShape(t, fixed, 422, 'invalid_parameter');
  t.match(fixed.body.errors, [{ path: 'default_subscription' }]);
  errorShape(
    t,
    await call(team, 'POST', '/topics', { name: 'x'.repeat(51), default_subscription: 'opt_in' }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await call(team, 'POST', '/topics', { name: 'Long', default_subscription: 'opt_in', description: 'd'.repeat(201) }),
    400,
    'validation_error',
  );
  errorShape(t, await call(team, 'POST', '/topics', { name: 'No default' }), 422, 'missing_required_field');
  const other = await call(team, 'POST', '/topics', { name: 'Offers', default_subscription: 'opt_out' });
  errorShape(t, await call(team, 'PATCH', `/topics/${other.body.id}`, { name: 'news' }), 422, 'invalid_parameter');
  const list = await call(team, 'GET', '/topics');
  t.same(
    list.body.data.map((x: { name: string }) => x.name),
    ['Offers', 'News'],
  );
  const removed = await call(team, 'DELETE', `/topics/${created.body.id}`);
  t.same(removed.body, { object: 'topic', id: created.body.id, deleted: true });
  errorShape(t, await call(team, 'GET', `/topics/${created.body.id}`), 404, 'not_found');
  t.equal(
    (await call(team, 'POST', '/topics', { name: 'News', default_subscription: 'opt_out' })).status,
    201,
    'a deleted topic frees its name',
  );
});
