import t from 'tap';
import { startDeliveryWorker } from '../../mta/queue/delivery-worker.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';

/**
 * An attempt that outlasts one lease: the worker renews the leases of what it is working on,
 * so a second worker polling the queue does not take the delivery back and send it again.
 */
const fx = await startMtaFixture({ sinkHosts: ['127.0.0.55'], noWorker: true, mta: { leaseMs: 1000, pollMs: 50 } });
t.teardown(() => fx.close());
fx.dns.add(
  { type: 'MX', name: 'slow.test', exchange: 'mx.slow.test', priority: 10 },
  { type: 'A', name: 'mx.slow.test', address: '127.0.0.55' },
);
const [sink] = fx.sinks as [(typeof fx.sinks)[0]];

t.test('a server slower than the lease: the delivery stays with its worker and arrives once', async (t) => {
  const id = await fx.send({ to: ['patient@slow.test'] });
  // The sink holds its reply to RCPT for 3.5 leases.
  const reached = new Promise<void>((resolve) => (sink.holdRcpt = { ms: 3500, reached: resolve }));
  const first = startDeliveryWorker(fx.app.runtime);
  t.teardown(() => first.stop());
  await reached;
  const heldUntil = Date.now() + 3500;
  const second = startDeliveryWorker(fx.app.runtime);
  t.teardown(() => second.stop());
  await fx.waitForEvents(id, ['email.delivered']);
  // Room for a second copy to arrive, had the lease been lost: the first worker's message
  // goes on once the held reply comes.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, heldUntil - Date.now()) + 1500));
  t.equal(sink.messages.filter((m) => m.to.includes('patient@slow.test')).length, 1, 'arrived once');
  const attempts = await fx.app.runtime.db.knex('delivery_attempts').where({ email_id: id });
  t.equal(attempts.length, 1, 'one attempt');
  const [delivery] = await fx.app.runtime.services.deliveries.repository.ofEmail(id);
  t.equal(delivery!.state, 'delivered');
});
