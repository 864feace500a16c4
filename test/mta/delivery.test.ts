import { authenticate } from 'mailauth';
import t from 'tap';
import { startMtaFixture } from '../helpers/mta-fixture.js';

/**
 * The real delivery path: POST /emails -> queue -> MX look-up in the test DNS -> SMTP from the
 * configured egress address to a sink on another loopback address -> DKIM that mailauth
 * verifies against the published key -> events.
 */
const fx = await startMtaFixture({ sinkHosts: ['127.0.0.10', '127.0.0.11'] });
t.teardown(() => fx.close());
fx.dns.add(
  { type: 'MX', name: 'dest.test', exchange: 'mx1.dest.test', priority: 10 },
  { type: 'A', name: 'mx1.dest.test', address: '127.0.0.10' },
  { type: 'MX', name: 'second.test', exchange: 'mx2.second.test', priority: 10 },
  { type: 'A', name: 'mx2.second.test', address: '127.0.0.11' },
);
const [sink, second] = fx.sinks as [NonNullable<(typeof fx.sinks)[0]>, NonNullable<(typeof fx.sinks)[0]>];

t.test('a sent email arrives from the egress address, DKIM-signed, and the events follow', async (t) => {
  const id = await fx.send({
    to: ['alice@dest.test'],
    cc: ['Bob <bob@second.test>'],
    subject: 'Delivery test',
    html: '<p>Hi</p>',
    headers: { 'X-Campaign': 'e2e' },
    tags: [{ name: 'kind', value: 'e2e' }],
  });
  await fx.waitFor(
    async () =>
      (await fx.waitForEvents(id, ['email.delivered'])).filter((e) => e.type === 'email.delivered').length === 2,
    'both deliveries',
  );

  const atSink = sink.messages.find((m) => m.to.includes('alice@dest.test'));
  t.ok(atSink, 'the message reached the sink of dest.test');
  t.equal(atSink!.remoteAddress, '127.0.0.2', 'it came from the configured egress address');
  t.equal(atSink!.helo, 'out2.mailroom.test', 'with the HELO name of that address');
  t.match(
    atSink!.from,
    new RegExp(`^bounces\\+${id}@send\\.sender\\.test$`),
    'the return path names the email (VERP) on the return-path label',
  );
  t.same(atSink!.to, ['alice@dest.test'], 'only the recipient at that destination');
  t.ok(
    second.messages.some((m) => m.to.includes('bob@second.test')),
    'the cc recipient got it at its own MX',
  );

  const result = await authenticate(atSink!.data, {
    resolver: fx.resolver as never,
    ip: '127.0.0.2',
    helo: 'out2.mailroom.test',
    sender: atSink!.from,
    mta: 'mx1.dest.test',
  } as never);
  const dkim = (result as { dkim: { results: Array<{ status: { result: string }; signingDomain: string }> } }).dkim
    .results;
  t.ok(dkim.length >= 1, 'the message carries a DKIM signature');
  t.equal(dkim[0]!.status.result, 'pass', 'which verifies against the key in DNS');
  t.equal(dkim[0]!.signingDomain, 'sender.test');

  const all = await fx.waitForEvents(id, ['email.sent', 'email.delivered']);
  const delivered = all.filter((e) => e.type === 'email.delivered');
  t.same(
    delivered
      .map((e) => e.data.to)
      .flat()
      .sort(),
    ['alice@dest.test', 'bob@second.test'],
    'one delivered event per recipient, listing only that recipient',
  );
  t.same(delivered[0]!.data.tags, { kind: 'e2e' }, 'tags travel with every event');
  t.same(delivered[0]!.data.headers, { 'X-Campaign': 'e2e' }, 'and headers');
  const email = await fx.app.runtime.services.deliveries.email(id);
  t.equal(email!.lastEvent, 'delivered', 'last_event follows the events');

  const deliveries = await fx.app.runtime.services.deliveries.repository.ofEmail(id);
  const attempts = await fx.app.runtime.services.deliveries.repository.attemptsOf(deliveries[0]!.id);
  t.equal(attempts.length, 1, 'each attempt is recorded');
  t.equal(attempts[0]!.egress_ip, '127.0.0.2', 'with the address it left from');
  t.match(String(attempts[0]!.transcript), /C: MAIL FROM:<bounces\+/, 'and its SMTP transcript');
});

t.test('several recipients at one destination share one SMTP transaction', async (t) => {
  const before = sink.messages.length;
  const id = await fx.send({ to: ['a1@dest.test', 'a2@dest.test', 'a3@dest.test'] });
  await fx.waitFor(
    async () =>
      (await fx.app.runtime.services.deliveries.repository.ofEmail(id)).filter((d) => d.state === 'delivered')
        .length === 3,
    'three deliveries',
  );
  const arrived = sink.messages.slice(before);
  t.equal(arrived.length, 1, 'one message');
  t.same(arrived[0]!.to.sort(), ['a1@dest.test', 'a2@dest.test', 'a3@dest.test']);
  const delivered = (await fx.waitForEvents(id, ['email.delivered'])).filter((e) => e.type === 'email.delivered');
  t.same(
    delivered.flatMap((e) => e.data.to).sort(),
    ['a1@dest.test', 'a2@dest.test', 'a3@dest.test'],
    'every recipient is announced delivered',
  );
});
