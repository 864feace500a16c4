import t from 'tap';
import { startDeliveryWorker } from '../../mta/queue/delivery-worker.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';

/**
 * mta.mxSessionLimit: MX hosts that take the connection and then end it (421 at MAIL) with
 * messages still to send. After two such hosts the attempt stops; the third MX is not tried
 * and the messages left wait for their retry.
 */
const fx = await startMtaFixture({
  sinkHosts: ['127.0.0.70', '127.0.0.71', '127.0.0.72'],
  noWorker: true,
  mta: { retrySchedule: [60] },
});
t.teardown(() => fx.close());
fx.dns.add(
  ...[1, 2, 3].flatMap((n) => [
    { type: 'MX' as const, name: 'closing.test', exchange: `mx${n}.closing.test`, priority: n * 10 },
    { type: 'A' as const, name: `mx${n}.closing.test`, address: `127.0.0.${69 + n}` },
  ]),
);
const [first, second, third] = fx.sinks as [(typeof fx.sinks)[0], (typeof fx.sinks)[0], (typeof fx.sinks)[0]];
for (const sink of [first, second])
  sink.faults.push({ stage: 'mail', code: 421, message: '4.3.2 Service shutting down, closing transmission channel' });

t.test('two MX hosts end the connection with messages left: the third is not tried this attempt', async (t) => {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push(await fx.send({ to: [`user${i}@closing.test`] }));
  const worker = startDeliveryWorker(fx.app.runtime);
  t.teardown(() => worker.stop());
  const deliveries = fx.app.runtime.services.deliveries.repository;
  const settled = async () => (await Promise.all(ids.map((id) => deliveries.ofEmail(id)))).flat();
  await fx.waitFor(async () => {
    const rows = await settled();
    return rows.length === 3 && rows.every((d) => d.state === 'deferred' || d.state === 'delivered');
  }, 'the first attempt of each');
  t.ok(first.connections >= 1 && second.connections >= 1, 'the first two MX hosts were connected to');
  t.equal(third.connections, 0, 'the third MX host was not');
  t.equal(third.messages.length, 0);
  t.same(
    (await settled()).map((d) => d.state),
    ['deferred', 'deferred', 'deferred'],
    'all three wait for their retry',
  );
});
