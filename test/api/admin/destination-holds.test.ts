import t from 'tap';
import { DestinationHoldRepository } from '../../../core/sending/deliveries/destination-hold.repository.js';
import { declared } from '../../helpers/declared-schema.js';
import { errorShape, request, type RequestOptions } from '../../helpers/http.js';
import { startMtaFixture } from '../../helpers/mta-fixture.js';
import { createOperator } from '../../helpers/operator.js';
import { insertDeliveries, insertEmail } from '../../helpers/queue-rows.js';

/**
 * Standing holds on a destination (/admin/queue/holds) against a running worker and a real
 * loopback SMTP sink: mail accepted after the hold waits as `held` while other destinations
 * are delivered, and goes out when the hold is released.
 */
const fx = await startMtaFixture({ sinkHosts: ['127.0.0.10'] });
t.teardown(() => fx.close());
const [sink] = fx.sinks;
for (const name of ['held.test', 'free.test'])
  fx.dns.add(
    { type: 'MX', name, exchange: `mx.${name}`, priority: 10 },
    { type: 'A', name: `mx.${name}`, address: '127.0.0.10' },
  );
const operator = await createOperator(fx.app);
const origin = new URL(fx.app.url).origin;
const admin = (path: string, options: RequestOptions = {}) =>
  request(fx.app.url, path, { ...options, headers: { cookie: operator.cookie, origin, ...options.headers } });
const send = (to: string) => fx.send({ from: 'Acme <hello@sender.test>', to, subject: 'Hello', text: 'Hello there' });
const statesOf = async (domain: string) =>
  (await fx.app.runtime.db.knex('deliveries').where({ recipient_domain: domain })).map((row) => row.state).sort();
const delivered = (domain: string) => sink!.messages.filter((m) => m.to.some((to) => to.endsWith(`@${domain}`)));

t.test('hold a domain, mail sent afterwards waits, release it and it is delivered', async (t) => {
  const hold = await admin('/admin/queue/holds', {
    method: 'POST',
    body: { domain: 'HELD.test', reason: 'Their MX rejects us today' },
  });
  t.equal(hold.status, 201);
  declared(t, 'POST', '/admin/queue/holds', hold);
  t.match(hold.body, {
    object: 'destination_hold',
    domain: 'held.test',
    reason: 'Their MX rejects us today',
    held_by: operator.email,
    held: 0,
    already_held: false,
  });

  const heldIds = [await send('a@held.test'), await send('b@held.test'), await send('c@held.test')];
  const freeId = await send('z@free.test');
  await fx.waitForEvents(freeId, ['email.delivered']);
  await fx.waitFor(async () => (await statesOf('held.test')).join() === 'held,held,held', 'three held deliveries');
  t.equal(delivered('held.test').length, 0, 'nothing went to the held domain');
  t.equal(delivered('free.test').length, 1, 'while the other destination was delivered');

  const list = await admin('/admin/queue/holds');
  t.equal(list.status, 200);
  declared(t, 'GET', '/admin/queue/holds', list);
  t.same(
    list.body.data.map((h: { domain: string }) => h.domain),
    ['held.test'],
  );
  const again = await admin('/admin/queue/holds', { method: 'POST', body: { domain: 'held.test', reason: 'other' } });
  t.match(again.body, { already_held: true, reason: 'Their MX rejects us today' }, 'the first hold and reason stay');

  const summary = await admin('/admin/queue');
  t.match(
    summary.body.destinations.find((d: { domain: string }) => d.domain === 'held.test'),
    { state: 'held', count: 3 },
    'the queue summary shows the held mail',
  );

  const release = await admin('/admin/queue/holds/held.test', { method: 'DELETE' });
  t.equal(release.status, 200);
  declared(t, 'DELETE', '/admin/queue/holds/:domain', release);
  t.same(release.body, { object: 'destination_hold', domain: 'held.test', deleted: true, released: 3 });
  for (const id of heldIds) await fx.waitForEvents(id, ['email.delivered']);
  t.equal(delivered('held.test').length, 3, 'the released mail reached the sink');
  t.same((await admin('/admin/queue/holds')).body.data, [], 'no hold left');
});

t.test('errors: not held, not a domain, unknown fields', async (t) => {
  errorShape(t, await admin('/admin/queue/holds/nothing.test', { method: 'DELETE' }), 404, 'not_found');
  errorShape(t, await admin('/admin/queue/holds/not_a_domain', { method: 'DELETE' }), 422, 'invalid_parameter');
  errorShape(t, await admin('/admin/queue/holds', { method: 'POST', body: {} }), 422, 'missing_required_field');
  errorShape(
    t,
    await admin('/admin/queue/holds', { method: 'POST', body: { domain: 'not a domain' } }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await admin('/admin/queue/holds', { method: 'POST', body: { domain: 'x.test', everything: true } }),
    400,
    'validation_error',
  );
  errorShape(t, await request(fx.app.url, '/admin/queue/holds', { token: fx.token }), 403, 'invalid_permission');
});

t.test('a delivery that slipped past the hold is put back as held by the claim, never attempted', async (t) => {
  const { runtime } = fx.app;
  // The hold row alone, as if the delivery was handed over while the hold was being placed.
  await new DestinationHoldRepository(runtime.db.knex).add({
    domain: 'slipped.test',
    reason: null,
    heldBy: null,
    createdAt: new Date(),
  });
  const email = await insertEmail(runtime, fx.teamId, ['late@slipped.test']);
  await insertDeliveries(runtime, email);
  const claimed = await runtime.services.deliveries.claim('transactional', 50, 'test-token', 30_000);
  t.notOk(
    claimed.some((d) => d.recipientDomain === 'slipped.test'),
    'the claim does not hand it to the worker',
  );
  await fx.waitFor(async () => (await statesOf('slipped.test')).join() === 'held', 'it waits as held');
  const release = await admin('/admin/queue/holds/slipped.test', { method: 'DELETE' });
  t.equal(release.body.released, 1);
});
