import t from 'tap';
import { startDeliveryWorker } from '../../mta/queue/delivery-worker.js';
import { newId } from '../../lib/ids.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';

/**
 * The queue shared by several workers: each delivery is sent once; transactional mail is not
 * stuck behind bulk; blocklisting rejections rest an egress address for that destination
 * while the rest of the pool carries on.
 */
const fx = await startMtaFixture({
  sinkHosts: ['127.0.0.50'],
  noWorker: true,
  mta: {
    regions: {
      'us-east-1': {
        ips: [
          { address: '127.0.0.2', helo: 'out2.mailroom.test' },
          { address: '127.0.0.3', helo: 'out3.mailroom.test' },
        ],
      },
    },
    blockThreshold: 2,
  },
});
t.teardown(() => fx.close());
fx.dns.add(
  { type: 'MX', name: 'shared.test', exchange: 'mx.shared.test', priority: 10 },
  { type: 'A', name: 'mx.shared.test', address: '127.0.0.50' },
);
const [sink] = fx.sinks as [(typeof fx.sinks)[0]];
const deliveries = fx.app.runtime.services.deliveries;

t.test('two workers share one queue: every message is delivered exactly once', async (t) => {
  const ids: string[] = [];
  for (let i = 0; i < 60; i++) ids.push(await fx.send({ to: [`user${i}@shared.test`] }));
  const workers = [startDeliveryWorker(fx.app.runtime), startDeliveryWorker(fx.app.runtime)];
  t.teardown(() => Promise.all(workers.map((w) => w.stop())));
  await fx.waitFor(
    async () => {
      const all = await Promise.all(ids.map((id) => deliveries.repository.ofEmail(id)));
      return all.every((rows) => rows.length === 1 && rows[0]!.state === 'delivered');
    },
    'all delivered',
    60_000,
  );
  const arrivals = sink.messages.filter((m) => m.to[0]!.startsWith('user'));
  t.equal(arrivals.length, 60, 'sixty messages arrived');
  t.equal(new Set(arrivals.map((m) => m.to[0])).size, 60, 'none twice');
  const delivered = (
    await fx.app.runtime.services.eventLog.list(fx.teamId, { type: 'email.delivered', limit: 1000 })
  ).filter((e) => ids.includes(String(e.data.email_id)));
  t.equal(delivered.length, 60, 'one email.delivered each');
});

t.test('transactional mail is claimed before a large bulk backlog', async (t) => {
  const bulkEmail = await fx.send({ to: ['bulk-seed@shared.test'] });
  await deliveries.handOver();
  const [seed] = await deliveries.repository.ofEmail(bulkEmail);
  const now = new Date(Date.now() - 60_000);
  // A broadcast's worth of due bulk deliveries, older than anything transactional.
  const bulk = Array.from({ length: 300 }, (_, i) => ({
    ...seed!,
    id: newId(),
    recipient: `bulk${i}@shared.test`,
    lane: 'bulk' as const,
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
  }));
  await deliveries.repository.insertMany(bulk);
  const transactional = await fx.send({ to: ['urgent@shared.test'] });
  await deliveries.handOver();
  const claimed = await deliveries.claim('transactional', 10, `test-${newId()}`, 60_000);
  t.ok(
    claimed.some((d) => d.emailId === transactional),
    'the transactional delivery is claimed first, ahead of older bulk',
  );
  t.ok(
    claimed.every((d) => d.lane === 'transactional'),
    'the transactional lane holds no bulk',
  );
  await fx.app.runtime.db
    .knex('deliveries')
    .whereIn('id', [...bulk.map((b) => b.id), ...claimed.map((c) => c.id), seed!.id])
    .delete();
});

t.test('queued transactional emails are handed over before a broadcast backlog', async (t) => {
  const backlog = [];
  for (let i = 0; i < 5; i++) backlog.push(await fx.send({ to: [`bulk-queued${i}@shared.test`] }));
  // Older queued emails of a broadcast (the fan-out's output) waiting for the hand-over.
  await fx.app.runtime.db.knex('emails').whereIn('id', backlog).update({ broadcast_id: newId() });
  const urgent = await fx.send({ to: ['reset@shared.test'] });
  t.equal(await deliveries.handOver(1), 1);
  const handed = await fx.app.runtime.db
    .knex('emails')
    .where({ last_event: 'sent' })
    .whereIn('id', [...backlog, urgent]);
  t.same(
    handed.map((row: { id: string }) => row.id),
    [urgent],
    'the newer transactional email went first',
  );
  t.equal(await deliveries.handOver(10), 5, 'then the broadcast emails');
  await fx.app.runtime.db
    .knex('deliveries')
    .whereIn('email_id', [...backlog, urgent])
    .delete();
});

t.test('blocklisting rejections rest an address for that destination; the pool carries on', async (t) => {
  await fx.app.runtime.db.knex('deliveries').delete();
  // The destination refuses everything from 127.0.0.2 as blocklisted (our address, not the recipient).
  sink.faults.push({
    stage: 'rcpt',
    code: 554,
    message: '5.7.1 Service unavailable; Client host [127.0.0.2] blocked using zen.spamhaus.org',
    remoteAddress: '127.0.0.2',
  });
  t.teardown(() => void (sink.faults = []));
  const worker = startDeliveryWorker(fx.app.runtime);
  t.teardown(() => worker.stop());
  const before = sink.messages.length;
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) ids.push(await fx.send({ to: [`after-block${i}@shared.test`] }));
  for (const id of ids) {
    try {
      await fx.waitForEvents(id, ['email.delivered'], 30_000);
    } catch (err) {
      const rows = await deliveries.repository.ofEmail(id);
      console.error(JSON.stringify(rows), JSON.stringify(await deliveries.repository.attemptsOf(rows[0]!.id)));
      throw err;
    }
  }
  const arrived = sink.messages.slice(before);
  t.equal(arrived.length, 8, 'every message arrived');
  t.ok(
    arrived.every((m) => m.remoteAddress === '127.0.0.3'),
    'all from the address that is not blocked',
  );
  const attempts = (
    await Promise.all(
      ids.map(async (id) => deliveries.repository.attemptsOf((await deliveries.repository.ofEmail(id))[0]!.id)),
    )
  ).flat();
  const refused = attempts.filter((a) => a.egress_ip === '127.0.0.2');
  t.ok(refused.length >= 2, `messages that picked 127.0.0.2 were refused there first (${refused.length} attempts)`);
  t.ok(
    refused.every((a) => a.outcome === 'deferred'),
    'a blocklisting refusal defers (the next try leaves from elsewhere), it does not bounce',
  );
  t.ok((await deliveries.restingEgress('shared.test')).has('127.0.0.2'), '127.0.0.2 now rests from shared.test');
  t.notOk((await deliveries.restingEgress('other.test')).has('127.0.0.2'), 'but not from other destinations');
  const suppressed = await fx.app.runtime.services.suppressions.suppressedAmong(
    fx.teamId,
    ids.map((_, i) => `after-block${i}@shared.test`),
  );
  t.equal(suppressed.size, 0, 'no recipient is suppressed for a block of our address');
});
