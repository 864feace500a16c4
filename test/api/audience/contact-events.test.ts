import t from 'tap';
import { declared } from '../../helpers/declared-schema.js';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * GET /contacts/{contact}/events (beyond the spec, for the dashboard's contact page): the events
 * sent for one contact, newest first, paged like every list; only the team's, only the
 * contact's; full_access only; the same 404 for an unknown contact and another team's.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam('Events of a contact');
const other = await app.createTeam('Other');
const call = (path: string, token = team.token, method = 'GET', body?: unknown) =>
  request(app.url, path, { method, token, body });
const ok = async (path: string, body: unknown, token = team.token) => {
  const res = await call(path, token, 'POST', body);
  if (res.status !== 201 && res.status !== 202) throw new Error(`${path}: ${res.text}`);
  return res.body as { id: string };
};

await ok('/events', { name: 'order.placed', schema: { amount: 'number' } });
await ok('/events', { name: 'user.signed_up', schema: null });
const ada = await ok('/contacts', { email: 'ada@example.com' });
const bob = await ok('/contacts', { email: 'bob@example.com' });
await ok('/events/send', { event: 'user.signed_up', contact_id: ada.id, payload: {} });
await ok('/events/send', { event: 'order.placed', email: 'ada@example.com', payload: { amount: 12.5, note: 'gift' } });
await ok('/events/send', { event: 'order.placed', contact_id: ada.id, payload: { amount: 3 } });
await ok('/events/send', { event: 'order.placed', contact_id: bob.id, payload: { amount: 99 } });
// Another team's contact at the same address, with its own event.
await ok('/events', { name: 'order.placed' }, other.token);
const otherAda = await ok('/contacts', { email: 'ada@example.com' }, other.token);
await ok('/events/send', { event: 'order.placed', contact_id: otherAda.id, payload: { amount: 1 } }, other.token);

t.test('the contact’s events, newest first, with their payloads', async (t) => {
  const res = await call(`/contacts/${ada.id}/events`);
  t.equal(res.status, 200);
  declared(t, 'GET', '/contacts/:contact/events', res);
  t.same(Object.keys(res.body).sort(), ['data', 'has_more', 'object']);
  t.equal(res.body.has_more, false);
  t.same(
    res.body.data.map((e: { event: string; payload: unknown }) => [e.event, e.payload]),
    [
      ['order.placed', { amount: 3 }],
      ['order.placed', { amount: 12.5, note: 'gift' }],
      ['user.signed_up', {}],
    ],
  );
  const [first] = res.body.data;
  t.same(Object.keys(first).sort(), ['contact_id', 'created_at', 'event', 'id', 'object', 'payload']);
  t.match(first, { object: 'contact_event', contact_id: ada.id, id: /^[0-9a-f-]{36}$/ });
  t.ok(!Number.isNaN(Date.parse(first.created_at)), 'created_at is a timestamp');

  const byAddress = await call('/contacts/ADA@example.com/events');
  t.same(byAddress.body.data, res.body.data, 'the contact named by its address, any case');
  const bobs = await call(`/contacts/${bob.id}/events`);
  t.same(
    bobs.body.data.map((e: { payload: unknown }) => e.payload),
    [{ amount: 99 }],
    'only that contact’s',
  );
  const others = await call(`/contacts/${otherAda.id}/events`, other.token);
  t.same(
    others.body.data.map((e: { payload: unknown }) => e.payload),
    [{ amount: 1 }],
    'only that team’s',
  );
});

t.test('pages with limit, after and before', async (t) => {
  const first = await call(`/contacts/${ada.id}/events?limit=2`);
  t.equal(first.body.data.length, 2);
  t.equal(first.body.has_more, true);
  const rest = await call(`/contacts/${ada.id}/events?limit=2&after=${first.body.data[1].id}`);
  t.same(
    rest.body.data.map((e: { event: string }) => e.event),
    ['user.signed_up'],
  );
  t.equal(rest.body.has_more, false);
  const back = await call(`/contacts/${ada.id}/events?limit=2&before=${rest.body.data[0].id}`);
  t.same(back.body.data, first.body.data, 'before walks back to the same page');
});

t.test('a contact with no event: an empty page', async (t) => {
  const cy = await ok('/contacts', { email: 'cy@example.com' });
  const res = await call(`/contacts/${cy.id}/events`);
  t.equal(res.status, 200);
  t.same(res.body, { object: 'list', has_more: false, data: [] });
});

t.test('refusals', async (t) => {
  errorShape(t, await call('/contacts/0199a0a0-0000-7000-8000-00000000ffff/events'), 404, 'not_found');
  errorShape(t, await call('/contacts/nobody@example.com/events'), 404, 'not_found');
  errorShape(t, await call('/contacts/not-an-address/events'), 404, 'not_found');
  errorShape(t, await call(`/contacts/${otherAda.id}/events`), 404, 'not_found');
  errorShape(t, await call(`/contacts/${ada.id}/events?limit=0`), 422, 'invalid_parameter');
  errorShape(t, await call(`/contacts/${ada.id}/events?limit=101`), 422, 'invalid_parameter');
  errorShape(t, await call(`/contacts/${ada.id}/events?after=nope`), 422, 'invalid_parameter');
  const both = `/contacts/${ada.id}/events?after=${ada.id}&before=${ada.id}`;
  errorShape(t, await call(both), 422, 'invalid_parameter');
  errorShape(t, await call(`/contacts/${ada.id}/events?color=red`), 422, 'invalid_parameter');
  errorShape(t, await call(`/contacts/${ada.id}/events`, 're_nope'), 401, 'invalid_api_key');
  const key = await app.runtime.services.apiKeys.create(team.teamId, { name: 'send', permission: 'sending_access' });
  errorShape(t, await call(`/contacts/${ada.id}/events`, key.token), 401, 'restricted_api_key');
});

t.test('erasing a contact erases the payloads of its events, and nobody else’s', async (t) => {
  const { knex } = app.runtime.db;
  const carl = await ok('/contacts', { email: 'carl@example.com' });
  await ok('/events/send', { event: 'order.placed', contact_id: carl.id, payload: { amount: 7, address: 'Elm St' } });
  const countFor = async (contactId: string) =>
    Number((await knex('custom_event_occurrences').where({ contact_id: contactId }).count({ n: '*' }))[0]!.n);
  t.equal(await countFor(carl.id), 1);
  const bobBefore = await countFor(bob.id);
  t.equal((await call(`/contacts/${carl.id}`, team.token, 'DELETE')).status, 200);
  t.equal(await countFor(carl.id), 0, 'the erased contact’s event rows are gone');
  t.equal(await countFor(bob.id), bobBefore, 'another contact’s stay');
  errorShape(t, await call(`/contacts/${carl.id}/events`), 404, 'not_found');
});
