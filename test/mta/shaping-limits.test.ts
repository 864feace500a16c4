import t from 'tap';
import { movableClock } from '../helpers/clock.js';
import { request } from '../helpers/http.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';

/**
 * A provider's rule in the delivery path: a fresh connection after its messages per connection,
 * and a team whose marketing is suspended there: its broadcast mail waits (no attempt spent)
 * while its transactional mail goes out, and goes once the suspension is lifted.
 */
const clock = movableClock();
const fx = await startMtaFixture({
  clock,
  sinkHosts: ['127.0.0.43', '127.0.0.44'],
  starttls: [true, false],
  mta: {
    shaping: {
      providers: [
        { name: 'partner', mx: ['partner.test'], messagesPerConnection: 3 },
        { name: 'strict', mx: ['strict.test'], tlsRequired: true },
      ],
    },
  },
});
t.teardown(() => fx.close());
fx.dns.add(
  { type: 'MX', name: 'people.test', exchange: 'mx1.partner.test', priority: 10 },
  { type: 'A', name: 'mx1.partner.test', address: '127.0.0.43' },
  { type: 'MX', name: 'plain.test', exchange: 'mx.strict.test', priority: 10 },
  { type: 'A', name: 'mx.strict.test', address: '127.0.0.44' },
);
const [sink] = fx.sinks as [NonNullable<(typeof fx.sinks)[0]>];
const call = (method: string, path: string, body?: unknown) =>
  request(fx.app.url, path, { method, token: fx.token, body });

t.test('no connection carries more than the provider’s messages per connection', async (t) => {
  const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => fx.send({ to: [`p${i}@people.test`] })));
  await Promise.all(ids.map((id) => fx.waitForEvents(id, ['email.delivered'])));
  const perSession = new Map<string, number>();
  for (const message of sink.messages) perSession.set(message.session, (perSession.get(message.session) ?? 0) + 1);
  t.equal(sink.messages.length, 10);
  t.ok(Math.max(...perSession.values()) <= 3, `at most 3 per connection (${[...perSession.values()].join(', ')})`);
  t.ok(perSession.size >= 4, 'so at least four connections');
});

t.test("a team's suspended marketing waits; its transactional mail does not", async (t) => {
  sink.messages.length = 0;
  const { actions } = fx.app.runtime.services.shaping;
  const suspension = await actions.suspendMarketing(fx.teamId, 'partner', 'complaint rate 1% (test)', 24);
  await call('PATCH', '/team', {
    sender_name: 'MTA',
    postal_address: { line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' },
  });
  for (const name of ['ann', 'bob', 'cat'])
    t.equal((await call('POST', '/contacts', { email: `${name}@people.test` })).status, 201);
  const segment = (
    await call('POST', '/segments', {
      name: 'People',
      filter: { all: [{ field: 'email', op: 'contains', value: '@people.test' }] },
    })
  ).body.id as string;
  const created = await call('POST', '/broadcasts', {
    name: 'News',
    segment_id: segment,
    from: 'News <news@sender.test>',
    subject: 'News',
    html: '<p>News</p>',
    send: true,
  });
  t.equal(created.status, 201, created.text);
  t.equal((await fx.app.runtime.services.broadcastFanOut.runDue()).emails, 3);
  const transactional = await fx.send({ to: ['dan@people.test'] });
  await fx.waitForEvents(transactional, ['email.delivered']);

  const rows = (await fx.app.runtime.db
    .knex('deliveries')
    .whereIn('recipient', ['ann@people.test', 'bob@people.test', 'cat@people.test'])
    .select('state', 'attempts', 'next_attempt_at')) as Array<{
    state: string;
    attempts: number;
    next_attempt_at: unknown;
  }>;
  await fx.waitFor(async () => {
    const now = (await fx.app.runtime.db
      .knex('deliveries')
      .whereIn('recipient', ['ann@people.test', 'bob@people.test', 'cat@people.test'])
      .select('state')) as Array<{ state: string }>;
    return now.length === 3 && now.every((row) => row.state === 'queued');
  }, 'the broadcast deliveries put back to wait');
  t.equal(rows.length, 3);
  t.same(
    sink.messages.map((m) => m.to[0]),
    ['dan@people.test'],
    'only the transactional message reached the provider',
  );
  const waiting = (await fx.app.runtime.db
    .knex('deliveries')
    .whereIn('recipient', ['ann@people.test', 'bob@people.test', 'cat@people.test'])
    .select('attempts')) as Array<{ attempts: number }>;
  t.ok(
    waiting.every((row) => Number(row.attempts) === 0),
    'no attempt spent',
  );

  // The operator lifts it: the mail goes at its next look (within ten minutes).
  t.ok(await actions.end(suspension.id));
  clock.advanceTo(Date.now() + 11 * 60_000);
  for (const worker of fx.workers) worker.wake();
  await fx.waitFor(async () => sink.messages.length === 4, 'the broadcast delivered after the lift');
  t.same(sink.messages.map((m) => m.to[0]).sort(), [
    'ann@people.test',
    'bob@people.test',
    'cat@people.test',
    'dan@people.test',
  ]);
});

t.test('a provider that requires TLS gets no message over a plain connection', async (t) => {
  const plain = fx.sinks[1]!;
  const id = await fx.send({ to: ['someone@plain.test'] });
  const events = await fx.waitForEvents(id, ['email.delivery_delayed']);
  t.notOk(
    events.some((e) => e.type === 'email.bounced'),
    'deferred, not bounced',
  );
  t.equal(plain.messages.length, 0, 'nothing was sent in the clear');
  const [delivery] = await fx.app.runtime.services.deliveries.repository.ofEmail(id);
  t.match(delivery!.lastReply, /STARTTLS|TLS/i, `the reason says so: ${delivery!.lastReply}`);
});
