import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { startDeliveryWorker } from '../../mta/queue/delivery-worker.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';
import { spawnMailroom, stopChild } from '../helpers/spawn-mailroom.js';

/**
 * An `mailroom mta` process is killed (SIGKILL) in the middle of an SMTP conversation. Its
 * claimed delivery is taken back once the lease runs out, by another worker, and the message
 * arrives exactly once with exactly one email.delivered.
 */
const fx = await startMtaFixture({ sinkHosts: ['127.0.0.30'], noWorker: true, mta: { leaseMs: 2000 } });
const children: ChildProcess[] = [];
t.teardown(async () => {
  await Promise.all(children.map((child) => stopChild(child, 'SIGKILL')));
  await fx.close();
});
fx.dns.add(
  { type: 'MX', name: 'crash.test', exchange: 'mx.crash.test', priority: 10 },
  { type: 'A', name: 'mx.crash.test', address: '127.0.0.30' },
);
const [sink] = fx.sinks as [(typeof fx.sinks)[0]];

t.test('a worker killed mid-delivery: the delivery is taken back and delivered once', async (t) => {
  const config = fx.app.runtime.config;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MAILROOM_CONFIG: join(config.dataDir, 'mailroom.json'),
    MAILROOM_ENV: 'test',
    MAILROOM_DATA_DIR: config.dataDir,
    MAILROOM_DATABASE_URL: config.database.url,
    MAILROOM_DNS_SERVERS: config.dns.servers.join(','),
    MAILROOM_REDIS_KEY_PREFIX: config.redis.keyPrefix,
  };
  delete env.MAILROOM_REDIS_URL;
  if (config.redis.url) env.MAILROOM_REDIS_URL = config.redis.url;
  const { child, ready } = spawnMailroom('mta', env, 'mta worker started');
  children.push(child);
  await ready;

  const reached = new Promise<void>((resolve) => (sink.holdRcpt = { ms: 10_000, reached: resolve }));
  const id = await fx.send({ to: ['victim@crash.test'] });
  await reached;
  await stopChild(child, 'SIGKILL');
  const [held] = await fx.app.runtime.services.deliveries.repository.ofEmail(id);
  t.equal(held!.state, 'sending', 'the dead worker left its claim behind');

  const worker = startDeliveryWorker(fx.app.runtime);
  t.teardown(() => worker.stop());
  const events = await fx.waitForEvents(id, ['email.delivered'], 60_000);
  t.equal(events.filter((e) => e.type === 'email.delivered').length, 1, 'one delivered event');
  t.equal(sink.messages.filter((m) => m.to.includes('victim@crash.test')).length, 1, 'the message arrived once');
  const [delivery] = await fx.app.runtime.services.deliveries.repository.ofEmail(id);
  t.equal(delivery!.state, 'delivered');
});
