import { Resend } from 'resend';
import t from 'tap';
import type { Caller } from '../../../core/platform/auth/caller.js';
import { request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/** The resend SDK's `events` resource is the contract where the spec shows nothing. */
const app = await startTestApp();
t.teardown(() => app.close());

const sdkFor = (token: string) => new Resend(token, { baseUrl: `${app.url}/api/v1` } as never);

t.test('every method of resend.events against the appliance', async (t) => {
  const team = await app.createTeam();
  const resend = sdkFor(team.token);
  const contact = (
    await request(app.url, '/contacts', { method: 'POST', token: team.token, body: { email: 'ada@example.com' } })
  ).body.id as string;

  const created = await resend.events.create({ name: 'user.signed_up', schema: { plan: 'string', seats: 'number' } });
  t.equal(created.error, null);
  t.same(created.data, { object: 'event', id: created.data!.id });
  const id = created.data!.id;
  const bare = await resend.events.create({ name: 'app.opened' });
  t.equal(bare.error, null);

  const got = await resend.events.get(id);
  t.equal(got.error, null);
  t.match(got.data, {
    object: 'event',
    id,
    name: 'user.signed_up',
    schema: { plan: 'string', seats: 'number' },
    created_at: String,
    updated_at: null,
  });
  t.same((await resend.events.get('user.signed_up')).data, got.data, 'by name');
  t.equal((await resend.events.get('app.opened')).data!.schema, null);

  const list = await resend.events.list();
  t.equal(list.error, null);
  t.equal(list.data!.object, 'list');
  t.equal(list.data!.has_more, false);
  t.same(
    list.data!.data.map((e) => e.name),
    ['app.opened', 'user.signed_up'],
  );
  const page = await resend.events.list({ limit: 1 });
  t.equal(page.data!.has_more, true);
  const next = await resend.events.list({ limit: 1, after: page.data!.data[0]!.id });
  t.same(
    next.data!.data.map((e) => e.name),
    ['user.signed_up'],
  );

  const updated = await resend.events.update('user.signed_up', { schema: { plan: 'string', ends: 'date' } });
  t.equal(updated.error, null);
  t.same(updated.data, { object: 'event', id });
  const after = (await resend.events.get(id)).data!;
  t.same(after.schema, { plan: 'string', ends: 'date' });
  t.type(after.updated_at, 'string');
  t.equal((await resend.events.update(id, { schema: null })).error, null);
  t.equal((await resend.events.get(id)).data!.schema, null);
  await resend.events.update(id, { schema: { plan: 'string', ends: 'date' } });

  const byId = await resend.events.send({ event: 'user.signed_up', contactId: contact, payload: { plan: 'pro' } });
  t.equal(byId.error, null);
  t.same(byId.data, { object: 'event', event: 'user.signed_up' });
  const byEmail = await resend.events.send({ event: 'user.signed_up', email: 'ada@example.com' });
  t.same(byEmail.data, { object: 'event', event: 'user.signed_up' });
  const rows = await app.runtime.services.customEvents.occurrences().ofTeam(team.teamId);
  t.equal(rows.length, 2, 'two sends, two events');
  t.same(rows[0]!.payload, { plan: 'pro' });

  const removed = await resend.events.remove('app.opened');
  t.equal(removed.error, null);
  t.same(removed.data, { object: 'event', id: bare.data!.id, deleted: true });
  t.match((await resend.events.get('app.opened')).error, { statusCode: 404, name: 'not_found' });
  t.equal((await resend.events.create({ name: 'app.opened' })).error, null, 'the name is free again');
  t.equal((await resend.events.remove(id)).data!.deleted, true, 'by id');
});

t.test('refusals through the SDK', async (t) => {
  const team = await app.createTeam();
  const resend = sdkFor(team.token);
  const contact = (
    await request(app.url, '/contacts', { method: 'POST', token: team.token, body: { email: 'bob@example.com' } })
  ).body.id as string;
  await resend.events.create({ name: 'order.placed', schema: { total: 'number', at: 'date' } });

  const refusals: Array<[string, Promise<{ error: unknown }>, number, string]> = [
    ['duplicate name', resend.events.create({ name: 'order.placed' }), 422, 'validation_error'],
    ['reserved prefix', resend.events.create({ name: 'svc:contact.created' }), 422, 'validation_error'],
    ['upper case name', resend.events.create({ name: 'Order.Placed' }), 422, 'validation_error'],
    [
      'UUID-shaped name',
      resend.events.create({ name: 'abcdef12-3456-4789-abcd-ef0123456789' }),
      422,
      'validation_error',
    ],
    ['101-character name', resend.events.create({ name: 'a'.repeat(101) }), 422, 'validation_error'],
    [
      'unknown schema type',
      resend.events.create({ name: 'bad.schema', schema: { a: 'integer' as never } }),
      422,
      'validation_error',
    ],
    [
      '51 schema keys',
      resend.events.create({
        name: 'wide',
        schema: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'string' as const])),
      }),
      422,
      'validation_error',
    ],
    ['get unknown', resend.events.get('nothing.here'), 404, 'not_found'],
    ['update unknown', resend.events.update('nothing.here', { schema: null }), 404, 'not_found'],
    ['remove unknown', resend.events.remove('nothing.here'), 404, 'not_found'],
    ['send unknown event', resend.events.send({ event: 'nothing.here', contactId: contact }), 404, 'not_found'],
    [
      'send unknown contact',
      resend.events.send({ event: 'order.placed', email: 'nobody@example.com' }),
      404,
      'not_found',
    ],
    ['send with neither', resend.events.send({ event: 'order.placed' } as never), 422, 'validation_error'],
    [
      'send with both',
      resend.events.send({ event: 'order.placed', contactId: contact, email: 'bob@example.com' } as never),
      422,
      'validation_error',
    ],
    [
      'payload type mismatch',
      resend.events.send({ event: 'order.placed', contactId: contact, payload: { total: '12', at: '2026-02-30' } }),
      422,
      'validation_error',
    ],
    [
      'payload over 16 KB',
      resend.events.send({ event: 'order.placed', contactId: contact, payload: { note: 'x'.repeat(17_000) } }),
      422,
      'validation_error',
    ],
  ];
  for (const [label, pending, statusCode, name] of refusals) {
    const { error } = await pending;
    t.match(error, { statusCode, name, message: String }, label);
  }
  const mismatch = await resend.events.send({
    event: 'order.placed',
    contactId: contact,
    payload: { total: '12', at: '2026-02-30' },
  });
  t.match(mismatch.error, { name: 'validation_error' });
  t.equal((await app.runtime.services.customEvents.occurrences().ofTeam(team.teamId)).length, 0, 'nothing sent');
});

t.test('scopes: events:read, events:write, events:send', async (t) => {
  const team = await app.createTeam();
  const contact = (
    await request(app.url, '/contacts', { method: 'POST', token: team.token, body: { email: 'cy@example.com' } })
  ).body.id as string;
  await request(app.url, '/events', { method: 'POST', token: team.token, body: { name: 'tick' } });
  const { apiKeys } = app.runtime.services;
  const authenticate = apiKeys.authenticate.bind(apiKeys);
  let scopes: string[] | null = null;
  apiKeys.authenticate = async (bearer: string): Promise<Caller> => ({ ...(await authenticate(bearer)), scopes });
  t.teardown(() => void (apiKeys.authenticate = authenticate));
  const resend = sdkFor(team.token);

  scopes = ['events:read'];
  t.equal((await resend.events.list()).error, null);
  t.equal((await resend.events.get('tick')).error, null);
  t.match((await resend.events.create({ name: 'tock' })).error, { statusCode: 403, name: 'invalid_permission' });
  t.match((await resend.events.update('tick', { schema: null })).error, { message: /events:write/ });
  t.match((await resend.events.remove('tick')).error, { statusCode: 403 });
  t.match((await resend.events.send({ event: 'tick', contactId: contact })).error, { message: /events:send/ });

  scopes = ['events:send'];
  t.equal((await resend.events.send({ event: 'tick', contactId: contact })).error, null);
  t.match((await resend.events.get('tick')).error, { statusCode: 403, message: /events:read/ });

  scopes = ['events:write'];
  t.equal((await resend.events.create({ name: 'tock' })).error, null);
  t.equal((await resend.events.update('tock', { schema: { a: 'boolean' } })).error, null);
  t.equal((await resend.events.remove('tock')).error, null);
});
