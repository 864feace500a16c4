import t from 'tap';
import { startMtaFixture } from '../helpers/mta-fixture.js';

/**
 * The database refuses to record an outcome for a while (here: a table it writes is renamed
 * away, then back): the message has already left, so the worker keeps trying to record it,
 * keeping its lease meanwhile, instead of letting the lease run out and sending it again.
 */
const fx = await startMtaFixture({ sinkHosts: ['127.0.0.65'], mta: { leaseMs: 1000, pollMs: 50 } });
t.teardown(() => fx.close());
fx.dns.add(
  { type: 'MX', name: 'blip.test', exchange: 'mx.blip.test', priority: 10 },
  { type: 'A', name: 'mx.blip.test', address: '127.0.0.65' },
);
const [sink] = fx.sinks as [(typeof fx.sinks)[0]];
const { knex } = fx.app.runtime.db;

t.test(
  'an outcome that cannot be written for a few seconds is written later, and the message is sent once',
  async (t) => {
    await knex.schema.renameTable('delivery_attempts', 'delivery_attempts_away');
    let renamedBack = false;
    t.teardown(async () => {
      if (!renamedBack) await knex.schema.renameTable('delivery_attempts_away', 'delivery_attempts');
    });
    const id = await fx.send({ to: ['once@blip.test'] });
    await fx.waitFor(
      async () => sink.messages.some((m) => m.to.includes('once@blip.test')),
      'the message at the server',
    );
    // Three leases long without the outcome recorded.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await knex.schema.renameTable('delivery_attempts_away', 'delivery_attempts');
    renamedBack = true;
    await fx.waitForEvents(id, ['email.delivered'], 60_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    t.equal(sink.messages.filter((m) => m.to.includes('once@blip.test')).length, 1, 'arrived once');
    const [delivery] = await fx.app.runtime.services.deliveries.repository.ofEmail(id);
    t.equal(delivery!.state, 'delivered');
    t.equal(delivery!.attempts, 1, 'one attempt recorded');
  },
);
