import t from 'tap';
import { movableClock } from '../helpers/clock.js';
import { request } from '../helpers/http.js';
import { startMtaFixture, type MtaFixture } from '../helpers/mta-fixture.js';

/**
 * IP warm-up end to end: a warming address sends no more than its day's allowance; the rest
 * leaves from a warm address of the same pool, or, when there is none, waits (queued, never
 * bounced) and goes out the next day.
 */
const SCHEDULE = { default: [50, 1000] };

async function sendMany(fx: MtaFixture, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 100) {
    const items = Array.from({ length: Math.min(100, count - start) }, (_, i) => ({
      from: 'Sender <hello@sender.test>',
      to: [`person${start + i}@warm.test`],
      subject: 'Hello',
      text: 'Hello there',
    }));
    const response = await request(fx.app.url, '/emails/batch', { method: 'POST', token: fx.token, body: items });
    if (response.status !== 200) throw new Error(`batch refused: ${response.text}`);
    ids.push(...(response.body.data as Array<{ id: string }>).map((item) => item.id));
  }
  return ids;
}

async function states(fx: MtaFixture, ids: string[]) {
  const all = (await Promise.all(ids.map((id) => fx.app.runtime.services.deliveries.repository.ofEmail(id)))).flat();
  const count = (state: string) => all.filter((d) => d.state === state).length;
  return {
    all,
    delivered: count('delivered'),
    bounced: count('bounced'),
    waiting: count('queued') + count('deferred'),
  };
}

const pool = (...addresses: string[]) => ({
  regions: { 'us-east-1': { ips: addresses.map((address) => ({ address, helo: `out.${address}.test` })) } },
  warmup: { schedule: SCHEDULE },
});

t.test('a warming address takes its day’s share; the warm one carries the rest', async (t) => {
  const fx = await startMtaFixture({ sinkHosts: ['127.0.0.41'], mta: pool('127.0.0.2', '127.0.0.3') });
  t.teardown(() => fx.close());
  fx.dns.add(
    { type: 'MX', name: 'warm.test', exchange: 'mx.warm.test' },
    { type: 'A', name: 'mx.warm.test', address: '127.0.0.41' },
  );
  await fx.app.runtime.services.shaping.warmup.start('127.0.0.3');
  const ids = await sendMany(fx, 500);
  await fx.waitFor(async () => (await states(fx, ids)).delivered === 500, '500 delivered', 180_000);
  const [sink] = fx.sinks;
  const from = (address: string) =>
    sink!.messages.filter((m) => m.localAddress === address || m.remoteAddress === address);
  t.equal(from('127.0.0.3').length, 50, 'the warming address sent exactly its day-1 allowance');
  t.equal(from('127.0.0.2').length, 450, 'the warm address sent the rest');
  const [status] = await fx.app.runtime.services.shaping.warmup.status(['gmail']);
  t.match(status, { address: '127.0.0.3', day: 1, complete: false, sentToday: 50 });
  t.match(
    status!.providers.find((p) => p.provider === 'default'),
    { allowance: 50, sent: 50 },
    'the status shows today’s volume against the allowance',
  );
});

t.test('with only warming addresses, what is over the allowance waits for the next day', async (t) => {
  const clock = movableClock();
  const fx = await startMtaFixture({ sinkHosts: ['127.0.0.42'], clock, mta: pool('127.0.0.3') });
  t.teardown(() => fx.close());
  fx.dns.add(
    { type: 'MX', name: 'warm.test', exchange: 'mx.warm.test' },
    { type: 'A', name: 'mx.warm.test', address: '127.0.0.42' },
  );
  await fx.app.runtime.services.shaping.warmup.start('127.0.0.3');
  const ids = await sendMany(fx, 500);
  await fx.waitFor(
    async () => {
      const now = await states(fx, ids);
      return now.delivered === 50 && now.waiting === 450;
    },
    '50 delivered and 450 waiting',
    120_000,
  );
  const day1 = await states(fx, ids);
  const tomorrow = fx.app.runtime.services.shaping.warmup.tomorrow();
  t.ok(
    day1.all.filter((d) => d.state !== 'delivered').every((d) => d.nextAttemptAt >= tomorrow && d.attempts === 0),
    'the 450 wait for tomorrow, with no attempt spent',
  );
  t.equal(day1.bounced, 0, 'nothing bounced');
  t.equal(fx.sinks[0]!.messages.length, 50);

  // The next day (after the first minutes over which waiting mail is spread).
  clock.advanceTo(tomorrow.getTime() + 11 * 60_000);
  for (const worker of fx.workers) worker.wake();
  await fx.waitFor(async () => (await states(fx, ids)).delivered === 500, 'the rest delivered the next day', 180_000);
  t.equal(fx.sinks[0]!.messages.length, 500, 'every message arrived once');
  t.equal((await states(fx, ids)).bounced, 0, 'nothing bounced');
  const [status] = await fx.app.runtime.services.shaping.warmup.status([]);
  t.match(status, { day: 2, sentToday: 450 });
});
