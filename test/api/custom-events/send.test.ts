import t from 'tap';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  request(app.url, path, { method, token: team.token, body, headers });
const knex = app.runtime.db.knex;
const occurrences = (teamId: string) =>
  knex('custom_event_occurrences').where({ team_id: teamId }).orderBy('id', 'asc') as Promise<
    Array<Record<string, any>>
  >;
const SCHEMA = { plan: 'string', seats: 'number', trial: 'boolean', ends: 'date' };

/** A team with a definition (user.signed_up, SCHEMA), a bare one (ping) and two contacts. */
async function setup() {
  const team = await app.createTeam();
  const definition = (await call(team, 'POST', '/events', { name: 'user.signed_up', schema: SCHEMA })).body.id;
  await call(team, 'POST', '/events', { name: 'ping' });
  const ada = (await call(team, 'POST', '/contacts', { email: 'ada@example.com' })).body.id as string;
  const bob = (await call(team, 'POST', '/contacts', { email: 'bob@example.com' })).body.id as string;
  return { team, definition, ada, bob };
}

t.test('send by contact_id and by email: 202, and the row is committed when the answer arrives', async (t) => {
  const { team, definition, ada, bob } = await setup();
  const payload = { plan: 'pro', seats: 3, trial: false, ends: '2026-12-31', extra: { nested: [1, 2] } };
  const sent = await call(team, 'POST', '/events/send', { event: 'user.signed_up', contact_id: ada, payload });
  t.equal(sent.status, 202);
  t.same(sent.body, { object: 'event', event: 'user.signed_up' });
  // Read at once, no waiting: 202 means durable.
  const [row] = await occurrences(team.teamId);
  t.ok(row, 'the row exists when 202 is answered');
  t.match(row, {
    team_id: team.teamId,
    definition_id: definition,
    event_name: 'user.signed_up',
    contact_id: ada,
    processed_at: null,
    lease_owner: null,
    lease_until: null,
  });
  t.same(JSON.parse(row!.payload), payload, 'the payload as sent');

  const byEmail = await call(team, 'POST', '/api/v1/events/send', {
    event: 'user.signed_up',
    email: 'BOB@Example.com',
  });
  t.equal(byEmail.status, 202, 'by address, any case, on the /api/v1 base');
  const rows = await occurrences(team.teamId);
  t.equal(rows.length, 2);
  t.equal(rows[1]!.contact_id, bob);
  t.same(JSON.parse(rows[1]!.payload), {}, 'no payload is an empty object');

  const stored = await app.runtime.services.customEvents.occurrences().find(rows[0]!.id);
  t.match(stored, { id: rows[0]!.id, contactId: ada, definitionId: definition, payload, processedAt: null });
  t.ok(stored!.createdAt instanceof Date);
});

t.test('no idempotency: two identical calls are two events, an Idempotency-Key changes nothing', async (t) => {
  const { team, ada } = await setup();
  const body = { event: 'ping', contact_id: ada, payload: { n: 1 } };
  const first = await call(team, 'POST', '/events/send', body, { 'idempotency-key': 'same-key' });
  const second = await call(team, 'POST', '/events/send', body, { 'idempotency-key': 'same-key' });
  t.equal(first.status, 202);
  t.equal(second.status, 202);
  t.notOk(second.headers.get('idempotent-replayed'), 'not a replay');
  await call(team, 'POST', '/events/send', body);
  const rows = await occurrences(team.teamId);
  t.equal(rows.length, 3, 'three calls, three rows');
  t.equal(new Set(rows.map((r) => r.id)).size, 3, 'three ids');
  // Concurrent sends: every one a row.
  const many = await Promise.all(Array.from({ length: 20 }, () => call(team, 'POST', '/events/send', body)));
  t.same(
    many.map((r) => r.status),
    Array(20).fill(202),
  );
  t.equal((await occurrences(team.teamId)).length, 23);
});

t.test('a sending_access key may send (and only send)', async (t) => {
  const { team, ada } = await setup();
  const key = await app.runtime.services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });
  const sending = { teamId: team.teamId, token: key.token };
  t.equal((await call(sending, 'POST', '/events/send', { event: 'ping', contact_id: ada })).status, 202);
  errorShape(t, await call(sending, 'GET', '/events/ping'), 401, 'restricted_api_key');
  t.equal((await occurrences(team.teamId)).length, 1);
});

t.test('exactly one of contact_id and email: neither or both is 422', async (t) => {
  const { team, ada } = await setup();
  for (const [label, body] of [
    ['neither', { event: 'ping' }],
    ['both', { event: 'ping', contact_id: ada, email: 'ada@example.com' }],
    ['both null', { event: 'ping', contact_id: null, email: null }],
    ['both, one unknown', { event: 'ping', contact_id: ada, email: 'nobody@example.com' }],
  ] as const) {
    const res = errorShape(t, await call(team, 'POST', '/events/send', body), 422, 'validation_error');
    t.ok(res.errors && res.errors.length === 1, `${label}: one error entry`);
    t.match(res.message, /exactly one of contact_id and email/, label);
  }
  t.equal(
    (await call(team, 'POST', '/events/send', { event: 'ping', contact_id: ada, email: null })).status,
    202,
    'null counts as absent',
  );
  t.equal((await occurrences(team.teamId)).length, 1, 'refusals wrote nothing');
});

t.test('unknown event or contact is 404 not_found', async (t) => {
  const { team, ada } = await setup();
  const other = await app.createTeam();
  await call(other, 'POST', '/events', { name: 'theirs' });
  const theirContact = (await call(other, 'POST', '/contacts', { email: 'eve@example.com' })).body.id;
  await call(team, 'POST', '/events', { name: 'gone' });
  await call(team, 'DELETE', '/events/gone');
  for (const [label, body] of [
    ['unknown event', { event: 'never.defined', contact_id: ada }],
    ['a deleted definition', { event: 'gone', contact_id: ada }],
    ["another team's event", { event: 'theirs', contact_id: ada }],
    ['a platform trigger name', { event: 'svc:contact.created', contact_id: ada }],
    ['a name in another case', { event: 'PING', contact_id: ada }],
    ['a name with a trailing space', { event: 'ping ', contact_id: ada }],
    ['an event id instead of a name', { event: '0199a0a0-0000-7000-8000-000000000001', contact_id: ada }],
    ['unknown contact id', { event: 'ping', contact_id: '0199a0a0-0000-7000-8000-000000000001' }],
    ['malformed contact id', { event: 'ping', contact_id: 'not-an-id' }],
    ['an address as contact_id', { event: 'ping', contact_id: 'ada@example.com' }],
    ['unknown address', { event: 'ping', email: 'nobody@example.com' }],
    ['malformed address', { event: 'ping', email: 'not an address' }],
    ["another team's contact by id", { event: 'ping', contact_id: theirContact }],
    ["another team's contact by address", { event: 'ping', email: 'eve@example.com' }],
  ] as const) {
    const res = await call(team, 'POST', '/events/send', body);
    errorShape(t, res, 404, 'not_found');
    t.pass(label);
  }
  // An erased contact is unknown from then on.
  await call(team, 'DELETE', `/contacts/${ada}`);
  errorShape(t, await call(team, 'POST', '/events/send', { event: 'ping', contact_id: ada }), 404, 'not_found');
  t.equal((await occurrences(team.teamId)).length, 0, 'nothing written');
});

t.test('input shape: event required, payload an object, unknown fields refused', async (t) => {
  const { team, ada } = await setup();
  const missing = errorShape(
    t,
    await call(team, 'POST', '/events/send', { contact_id: ada }),
    422,
    'missing_required_field',
  );
  t.match(missing.errors, [{ path: 'event' }]);
  for (const [label, body] of [
    ['event not a string', { event: 5, contact_id: ada }],
    ['event empty', { event: '', contact_id: ada }],
    ['payload an array', { event: 'ping', contact_id: ada, payload: [1] }],
    ['payload a string', { event: 'ping', contact_id: ada, payload: 'x' }],
    ['payload null', { event: 'ping', contact_id: ada, payload: null }],
    ['contact_id a number', { event: 'ping', contact_id: 5 }],
    ['an unknown field', { event: 'ping', contact_id: ada, name: 'x' }],
  ] as const) {
    errorShape(t, await call(team, 'POST', '/events/send', body), 400, 'validation_error');
    t.pass(label);
  }
  errorShape(
    t,
    await request(app.url, '/events/send', { method: 'POST', token: team.token, rawBody: '{"event":' }),
    400,
    'validation_error',
  );
  t.equal((await occurrences(team.teamId)).length, 0);
});

const VALUES: Record<string, { good: unknown[]; bad: unknown[] }> = {
  string: { good: ['', 'pro', '2026-01-01', 'ü'.repeat(10)], bad: [5, 0, true, false, [], ['a'], {}, { a: 1 }] },
  number: { good: [0, -1.5, 3, 1e300, -0], bad: ['5', '', true, [], {}, [1]] },
  boolean: { good: [true, false], bad: ['true', 'false', 0, 1, [], {}] },
  date: {
    good: [
      '2026-01-31',
      '2028-02-29',
      '2000-02-29',
      '0001-01-01',
      '2026-01-31T09:30Z',
      '2026-01-31T09:30:00Z',
      '2026-01-31T09:30:00.123Z',
      '2026-12-31T23:59:59.123456789+14:00',
      '2026-01-31T00:00:00-03:30',
      '2026-01-31T00:00:00+0530',
    ],
    bad: [
      '2026-02-29',
      '1900-02-29',
      '2026-02-30T10:00:00Z',
      '2026-04-31',
      '2026-13-01',
      '2026-00-10',
      '2026-01-00',
      '2026-01-32',
      '2026-01-31T09:30:00',
      '2026-01-31T24:00:00Z',
      '2026-01-31T09:60Z',
      '2026-01-31T09:30:61Z',
      '2026-01-31T09:30:00+25:00',
      '2026-01-31 09:30:00Z',
      '2026-1-31',
      '26-01-31',
      '31/01/2026',
      '20260131',
      'tomorrow',
      '',
      1767139200000,
      true,
      {},
    ],
  },
};

t.test('payload against the schema, per type: good values pass, each bad value is 422 naming the key', async (t) => {
  const { team, ada } = await setup();
  const keyOf: Record<string, string> = { string: 'plan', number: 'seats', boolean: 'trial', date: 'ends' };
  let accepted = 0;
  for (const [type, { good, bad }] of Object.entries(VALUES)) {
    const key = keyOf[type]!;
    for (const value of good) {
      const res = await call(team, 'POST', '/events/send', {
        event: 'user.signed_up',
        contact_id: ada,
        payload: { [key]: value },
      });
      t.equal(res.status, 202, `${type}: ${JSON.stringify(value)} passes`);
      accepted++;
    }
    for (const value of bad) {
      const res = await call(team, 'POST', '/events/send', {
        event: 'user.signed_up',
        contact_id: ada,
        payload: { [key]: value },
      });
      const body = errorShape(t, res, 422, 'validation_error');
      t.same(
        body.errors?.map((e) => e.path),
        [`payload.${key}`],
        `${type}: ${JSON.stringify(value)} refused, one entry for the key`,
      );
    }
  }
  t.equal((await occurrences(team.teamId)).length, accepted, 'only accepted sends were written');
});

t.test('one errors[] entry per disagreeing key; absent, null and undeclared keys pass', async (t) => {
  const { team, ada } = await setup();
  const all = await call(team, 'POST', '/events/send', {
    event: 'user.signed_up',
    contact_id: ada,
    payload: { plan: 1, seats: 'x', trial: 'yes', ends: 'soon', other: 'fine' },
  });
  const body = errorShape(t, all, 422, 'validation_error');
  t.same(
    body.errors!.map((e) => e.path),
    ['payload.plan', 'payload.seats', 'payload.trial', 'payload.ends'],
  );
  for (const error of body.errors!) t.type(error.message, 'string');
  for (const payload of [
    {},
    { plan: null, seats: null, trial: null, ends: null },
    { plan: 'pro' },
    { undeclared: { deep: [1, { x: null }] }, another: 5, PLAN: 7 },
  ]) {
    const res = await call(team, 'POST', '/events/send', { event: 'user.signed_up', contact_id: ada, payload });
    t.equal(res.status, 202, JSON.stringify(payload));
  }
  // Infinity cannot be written as JSON, but 1e999 parses to it: not a finite number.
  const infinite = await request(app.url, '/events/send', {
    method: 'POST',
    token: team.token,
    headers: { 'content-type': 'application/json' },
    rawBody: `{"event":"user.signed_up","contact_id":"${ada}","payload":{"seats":1e999}}`,
  });
  t.match(errorShape(t, infinite, 422, 'validation_error').errors, [{ path: 'payload.seats' }]);
  // A definition without a schema takes any payload.
  const anything = await call(team, 'POST', '/events/send', {
    event: 'ping',
    contact_id: ada,
    payload: { plan: 1, seats: 'x', ends: 'whenever' },
  });
  t.equal(anything.status, 202);
});

t.test('the schema in force is the one of the moment: PATCH applies to later sends', async (t) => {
  const { team, ada } = await setup();
  const send = (payload: object) => call(team, 'POST', '/events/send', { event: 'ping', contact_id: ada, payload });
  t.equal((await send({ n: 'x' })).status, 202);
  await call(team, 'PATCH', '/events/ping', { schema: { n: 'number' } });
  errorShape(t, await send({ n: 'x' }), 422, 'validation_error');
  t.equal((await send({ n: 1 })).status, 202);
  await call(team, 'PATCH', '/events/ping', { schema: null });
  t.equal((await send({ n: 'x' })).status, 202, 'cleared');
});

t.test('payload limit: 16 KB of JSON (16,384 bytes as sent compactly)', async (t) => {
  const { team, ada } = await setup();
  // {"s":"..."} is 8 bytes around the string.
  const ofBytes = (n: number) => ({ s: 'x'.repeat(n - 8) });
  t.equal(Buffer.byteLength(JSON.stringify(ofBytes(16_384))), 16_384);
  const send = (payload: unknown) => call(team, 'POST', '/events/send', { event: 'ping', contact_id: ada, payload });
  t.equal((await send(ofBytes(16_384))).status, 202, 'exactly 16 KB passes');
  const over = errorShape(t, await send(ofBytes(16_385)), 422, 'validation_error');
  t.match(over.errors, [{ path: 'payload' }]);
  // Bytes, not characters: 6,000 three-byte characters are 18,000 bytes.
  errorShape(t, await send({ s: '€'.repeat(6_000) }), 422, 'validation_error');
  t.equal((await send({ s: '€'.repeat(5_000) })).status, 202, '15,008 bytes pass');
  errorShape(t, await send({ big: 'x'.repeat(100_000) }), 422, 'validation_error');
  // The limit comes before the lookups: an oversized payload for an unknown event is still 422.
  errorShape(
    t,
    await call(team, 'POST', '/events/send', { event: 'nope', contact_id: ada, payload: ofBytes(20_000) }),
    422,
    'validation_error',
  );
  const rows = await occurrences(team.teamId);
  t.equal(rows.length, 2);
  t.equal(Buffer.byteLength(rows[0]!.payload), 16_384, 'stored whole');
});

t.test('202 depends on the commit: when the row cannot be written, the send is refused', async (t) => {
  const { team, ada } = await setup();
  await knex.schema.renameTable('custom_event_occurrences', 'custom_event_occurrences_away');
  let failed;
  try {
    failed = await call(team, 'POST', '/events/send', { event: 'ping', contact_id: ada });
  } finally {
    await knex.schema.renameTable('custom_event_occurrences_away', 'custom_event_occurrences');
  }
  t.not(failed.status, 202, `not accepted (${failed.status})`);
  t.ok(failed.status >= 500, 'a server-side failure');
  t.equal(failed.body.statusCode, failed.status, 'in the error body');
  t.equal((await occurrences(team.teamId)).length, 0, 'nothing recorded');
  t.equal((await call(team, 'POST', '/events/send', { event: 'ping', contact_id: ada })).status, 202, 'works again');
});

t.test('the queue for the automations engine: claim unprocessed rows once, mark them processed', async (t) => {
  const { team, ada } = await setup();
  // The queue is the whole appliance's: set aside what the other subtests sent.
  await knex('custom_event_occurrences').update({ processed_at: new Date() });
  for (let i = 0; i < 5; i++)
    await call(team, 'POST', '/events/send', { event: 'ping', contact_id: ada, payload: { i } });
  const queue = app.runtime.services.customEvents.occurrences();
  const now = new Date();
  const lease = new Date(now.getTime() + 60_000);
  const first = await queue.claim('worker-a:1', now, lease, 3);
  t.same(
    first.map((o) => o.payload.i),
    [0, 1, 2],
    'oldest first',
  );
  t.ok(first.every((o) => o.leaseOwner === 'worker-a:1' && o.leaseUntil));
  const second = await queue.claim('worker-b:1', now, lease, 10);
  t.same(
    second.map((o) => o.payload.i),
    [3, 4],
    'never a row another worker holds',
  );
  await queue.markProcessed(
    first.map((o) => o.id),
    now,
  );
  // worker-b died: once its lease ran out, its rows are claimable again; processed ones never.
  const later = new Date(lease.getTime() + 1);
  const retaken = await queue.claim('worker-c:1', later, new Date(later.getTime() + 60_000), 10);
  t.same(
    retaken.map((o) => o.payload.i),
    [3, 4],
  );
  await queue.markProcessed(
    retaken.map((o) => o.id),
    later,
  );
  t.same(await queue.claim('worker-d:1', later, later, 10), [], 'nothing left');
  t.ok((await queue.ofTeam(team.teamId)).every((o) => o.processedAt !== null));
});
