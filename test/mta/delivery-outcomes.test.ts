import t from 'tap';
import { startMtaFixture } from '../helpers/mta-fixture.js';

/**
 * Outcomes against real SMTP sinks: deferral then success, deferral until expiry, permanent
 * refusal (bounce + suppression), MX fall-through, null MX, no such domain, enforced TLS
 * against a server without STARTTLS, and the mailbox simulator.
 */
const fx = await startMtaFixture({
  sinkHosts: ['127.0.0.20', '127.0.0.21', '127.0.0.22'],
  starttls: [true, true, false],
  mta: { maxQueueSeconds: 4, retrySchedule: [1] },
});
t.teardown(() => fx.close());
const [sink, backup, plain] = fx.sinks as [(typeof fx.sinks)[0], (typeof fx.sinks)[0], (typeof fx.sinks)[0]];
fx.dns.add(
  { type: 'MX', name: 'flaky.test', exchange: 'mx.flaky.test', priority: 10 },
  { type: 'A', name: 'mx.flaky.test', address: '127.0.0.20' },
  // fallthrough.test: the preferred MX does not listen (127.0.0.29); the backup does.
  { type: 'MX', name: 'fallthrough.test', exchange: 'mx1.fallthrough.test', priority: 10 },
  { type: 'MX', name: 'fallthrough.test', exchange: 'mx2.fallthrough.test', priority: 20 },
  { type: 'A', name: 'mx1.fallthrough.test', address: '127.0.0.29' },
  { type: 'A', name: 'mx2.fallthrough.test', address: '127.0.0.21' },
  { type: 'MX', name: 'nullmx.test', exchange: '.', priority: 0 },
  { type: 'MX', name: 'plain.test', exchange: 'mx.plain.test', priority: 10 },
  { type: 'A', name: 'mx.plain.test', address: '127.0.0.22' },
  // many.test: eight MX hosts, none listening (127.0.0.30-37).
  ...Array.from({ length: 8 }, (_, i) => [
    { type: 'MX' as const, name: 'many.test', exchange: `mx${i + 1}.many.test`, priority: 10 * (i + 1) },
    { type: 'A' as const, name: `mx${i + 1}.many.test`, address: `127.0.0.${30 + i}` },
  ]).flat(),
  // implicit.test has no MX, only an address: the implicit MX (RFC 5321 5.1).
  { type: 'A', name: 'implicit.test', address: '127.0.0.20' },
);
const deliveries = fx.app.runtime.services.deliveries;
const types = (events: Array<{ type: string }>) => events.map((e) => e.type);

t.test('4xx then success: one delivery_delayed, then delivered', async (t) => {
  sink.faults.push({
    stage: 'rcpt',
    code: 451,
    message: '4.7.1 Greylisted, please try again later',
    recipient: 'grey@flaky.test',
    times: 1,
  });
  const id = await fx.send({ to: ['grey@flaky.test'] });
  const events = await fx.waitForEvents(id, ['email.delivered']);
  t.same(
    types(events).filter((type) => type !== 'email.sent'),
    ['email.delivery_delayed', 'email.delivered'],
  );
  const delay = events.find((e) => e.type === 'email.delivery_delayed')!.data;
  t.same(delay.to, ['grey@flaky.test']);
  t.same(delay.delay.delayedRecipients, ['grey@flaky.test']);
  t.ok(Date.parse(delay.delay.expirationTime) > Date.now(), 'the delay names when the message expires');
  t.type(delay.delay.type, 'string');
  const [delivery] = await deliveries.repository.ofEmail(id);
  t.equal(delivery!.attempts, 2, 'two attempts');
  t.equal(sink.messages.filter((m) => m.to.includes('grey@flaky.test')).length, 1, 'delivered once');
});

t.test('4xx until expiry: a bounce, no suppression', async (t) => {
  sink.faults.push({
    stage: 'rcpt',
    code: 452,
    message: '4.2.2 The email account that you tried to reach is over quota',
    recipient: 'full@flaky.test',
  });
  const id = await fx.send({ to: ['full@flaky.test'] });
  const events = await fx.waitForEvents(id, ['email.bounced'], 30_000);
  t.equal(types(events).filter((type) => type === 'email.delivery_delayed').length, 1, 'delivery_delayed only once');
  const bounce = events.find((e) => e.type === 'email.bounced')!.data.bounce;
  t.equal(bounce.type, 'Transient');
  t.match(bounce.message, /expired|Gave up/);
  t.match(bounce.diagnosticCode[0], /452/);
  const suppressed = await fx.app.runtime.services.suppressions.suppressedAmong(fx.teamId, ['full@flaky.test']);
  t.equal(suppressed.size, 0, 'a temporary problem does not suppress the address');
  const [delivery] = await deliveries.repository.ofEmail(id);
  t.equal(delivery!.state, 'bounced');
  t.ok(delivery!.attempts >= 2, 'it was retried before giving up');
});

t.test('5xx: bounce with the server reply, and the address is suppressed', async (t) => {
  sink.faults.push({
    stage: 'rcpt',
    code: 550,
    message: '5.1.1 The email account that you tried to reach does not exist',
    recipient: 'nobody@flaky.test',
  });
  const id = await fx.send({ to: ['nobody@flaky.test', 'somebody@flaky.test'] });
  const events = await fx.waitForEvents(id, ['email.bounced', 'email.delivered']);
  const bounced = events.find((e) => e.type === 'email.bounced')!.data;
  t.same(bounced.to, ['nobody@flaky.test'], 'only the refused recipient is in the bounce');
  t.equal(bounced.bounce.type, 'Permanent');
  t.type(bounced.bounce.subType, 'string');
  t.match(bounced.bounce.diagnosticCode.join(' '), /550/);
  t.same(
    events.find((e) => e.type === 'email.delivered')!.data.to,
    ['somebody@flaky.test'],
    'the other recipient is delivered',
  );
  const suppressions = await fx.app.runtime.services.suppressions.suppressedAmong(fx.teamId, ['nobody@flaky.test']);
  t.equal(suppressions.size, 1, 'hard bounce: suppressed');
  const again = await fx.send({ to: ['nobody@flaky.test', 'somebody@flaky.test'] });
  const next = await fx.waitForEvents(again, ['email.suppressed', 'email.delivered']);
  t.same(next.find((e) => e.type === 'email.suppressed')!.data.to, ['nobody@flaky.test'], 'the next send skips it');
});

t.test('a reply of 100,000 characters is kept in part: the outcome is recorded, nothing gets stuck', async (t) => {
  sink.faults.push({
    stage: 'rcpt',
    code: 550,
    message: `5.1.1 No such user ${'x'.repeat(100_000)}`,
    recipient: 'verbose@flaky.test',
  });
  const id = await fx.send({ to: ['verbose@flaky.test'] });
  const events = await fx.waitForEvents(id, ['email.bounced']);
  const bounce = events.find((e) => e.type === 'email.bounced')!.data.bounce;
  t.match(bounce.diagnosticCode[0], /^smtp; 550 5\.1\.1 No such user x+\.\.\. \(reply truncated\)$/);
  t.ok(
    bounce.diagnosticCode[0].length < 5000,
    `the reply kept is bounded (${bounce.diagnosticCode[0].length} characters)`,
  );
  const [delivery] = await deliveries.repository.ofEmail(id);
  t.equal(delivery!.state, 'bounced');
  t.ok(delivery!.lastReply!.length <= 4100, 'the delivery row keeps the bounded reply');
});

t.test('many unreachable MX hosts: one attempt tries the first 5 addresses only (mta.mxAddressLimit)', async (t) => {
  const id = await fx.send({ to: ['user@many.test'] });
  await fx.waitForEvents(id, ['email.delivery_delayed']);
  const first = await fx.app.runtime.db.knex('delivery_attempts').where({ email_id: id }).orderBy('created_at').first();
  const tried = [...String(first.transcript).matchAll(/^\* (mx\d)\.many\.test \[/gm)].map((m) => m[1]);
  t.same(tried, ['mx1', 'mx2', 'mx3', 'mx4', 'mx5'], 'in preference order, five addresses');
});

t.test('MX fall-through: the preferred MX is down, the backup takes the mail', async (t) => {
  const id = await fx.send({ to: ['user@fallthrough.test'] });
  await fx.waitForEvents(id, ['email.delivered']);
  t.ok(
    backup.messages.some((m) => m.to.includes('user@fallthrough.test')),
    'arrived at the second MX',
  );
  const [delivery] = await deliveries.repository.ofEmail(id);
  const attempts = await deliveries.repository.attemptsOf(delivery!.id);
  t.equal(attempts.length, 1, 'one attempt');
  t.equal(attempts[0]!.mx_host, 'mx2.fallthrough.test');
});

t.test('implicit MX: a domain with only an address record gets its mail there', async (t) => {
  const id = await fx.send({ to: ['user@implicit.test'] });
  await fx.waitForEvents(id, ['email.delivered']);
  t.ok(sink.messages.some((m) => m.to.includes('user@implicit.test')));
});

t.test('null MX and a domain that does not exist: permanent bounces at once', async (t) => {
  const id = await fx.send({ to: ['user@nullmx.test'] });
  const events = await fx.waitForEvents(id, ['email.bounced']);
  const bounce = events.find((e) => e.type === 'email.bounced')!.data.bounce;
  t.equal(bounce.type, 'Permanent');
  t.match(bounce.message, /null MX/);
  const missing = await fx.send({ to: ['user@missing.test'] });
  const missingEvents = await fx.waitForEvents(missing, ['email.bounced']);
  t.match(missingEvents.find((e) => e.type === 'email.bounced')!.data.bounce.message, /no MX and no address/);
});

t.test('enforced TLS against a server without STARTTLS: deferred, then bounced at expiry', async (t) => {
  const domain = await fx.app.runtime.services.domains.repository.findById(fx.domainId);
  await fx.app.runtime.services.domains.repository.update(fx.domainId, { tls: 'enforced' });
  t.teardown(() => fx.app.runtime.services.domains.repository.update(fx.domainId, { tls: domain!.tls }));
  const id = await fx.send({ to: ['user@plain.test'] });
  const events = await fx.waitForEvents(id, ['email.bounced'], 30_000);
  t.ok(types(events).includes('email.delivery_delayed'), 'deferred first');
  t.equal(plain.messages.filter((m) => m.to.includes('user@plain.test')).length, 0, 'nothing was sent in the clear');
  t.match(events.find((e) => e.type === 'email.bounced')!.data.bounce.message, /TLS|STARTTLS/i);
});

t.test('the mailbox simulator answers without leaving the appliance', async (t) => {
  const simulator = fx.app.runtime.config.sandbox.simulatorDomain;
  const connections = fx.sinks.reduce((n, s) => n + s.connections, 0);
  const delivered = await fx.send({ to: [`delivered@${simulator}`] });
  const bounced = await fx.send({ to: [`bounced@${simulator}`] });
  const complained = await fx.send({ to: [`complained@${simulator}`] });
  const suppressed = await fx.send({ to: [`suppressed@${simulator}`] });
  t.ok(types(await fx.waitForEvents(delivered, ['email.delivered'])).includes('email.delivered'));
  t.equal(
    (await fx.waitForEvents(bounced, ['email.bounced'])).find((e) => e.type === 'email.bounced')!.data.bounce.type,
    'Permanent',
  );
  t.ok(types(await fx.waitForEvents(complained, ['email.delivered', 'email.complained'])).includes('email.complained'));
  t.ok(types(await fx.waitForEvents(suppressed, ['email.suppressed'])).includes('email.suppressed'));
  t.equal(
    fx.sinks.reduce((n, s) => n + s.connections, 0),
    connections,
    'no SMTP connection was made',
  );
  t.equal(
    (await fx.app.runtime.services.suppressions.suppressedAmong(fx.teamId, [`bounced@${simulator}`])).size,
    0,
    'simulated bounces are not suppressed',
  );
});
