import t from 'tap';
import { JobLease } from '../../core/platform/leases/job-lease.js';
import { migrateLatest } from '../../db/migrate.js';
import { connectTestDatabase, TEST_DB_KIND } from '../helpers/test-database.js';

/**
 * Schedulers on several nodes: every node's timer fires for each tick, and the job runs once
 * per tick, even when the first run is over (and its lease released) before the second node
 * asks. A dead holder's lease is taken at once, but not for a tick that already ran.
 */
const { db, close } = await connectTestDatabase();
t.teardown(close);
await migrateLatest(db.knex);
const lease = new JobLease(db.knex);
const base = new Date('2026-11-29T08:00:00.000Z');
const at = (ms: number) => new Date(base.getTime() + ms);

t.test(`one run per tick across holders (${TEST_DB_KIND})`, async (t) => {
  const job = { name: 'quick-job', ttlMs: 60_000 };
  const tick = at(0);
  t.ok(await lease.acquire({ ...job, holder: 'node-a', now: at(5), tick }), 'the first node takes the tick');
  await lease.release('quick-job', 'node-a', at(20));
  t.notOk(await lease.acquire({ ...job, holder: 'node-b', now: at(300), tick }), 'the second node finds it ran');
  t.notOk(await lease.acquire({ ...job, holder: 'node-a', now: at(400), tick }), 'the first node does not rerun it');
  t.ok(await lease.acquire({ ...job, holder: 'node-b', now: at(60_050), tick: at(60_000) }), 'the next tick runs');
  await lease.release('quick-job', 'node-b', at(60_100));
  t.ok(await lease.acquire({ ...job, holder: 'node-a', now: at(61_000) }), 'a run on demand has no tick to check');
  await lease.release('quick-job', 'node-a', at(61_100));
});

t.test('concurrent takes of one tick: exactly one wins', async (t) => {
  const tick = at(120_000);
  const takes = await Promise.all(
    ['a', 'b', 'c', 'd'].map((node) =>
      lease.acquire({ name: 'raced-job', holder: `node-${node}`, ttlMs: 60_000, now: at(120_010), tick }),
    ),
  );
  t.equal(takes.filter(Boolean).length, 1, 'one holder of four');
});

t.test("a dead holder's lease is taken at once, for a tick it did not run", async (t) => {
  const job = { name: 'long-job', ttlMs: 3_600_000 };
  t.ok(await lease.acquire({ ...job, holder: 'dead-node', now: at(180_000), tick: at(180_000) }));
  const isDead = async (holder: string) => holder === 'dead-node';
  t.notOk(
    await lease.acquire({ ...job, holder: 'node-b', now: at(180_500), tick: at(180_000), isDead }),
    'not the tick the dead holder took',
  );
  t.notOk(
    await lease.acquire({ ...job, holder: 'node-b', now: at(240_000), tick: at(240_000) }),
    'a live holder keeps it until it expires',
  );
  t.ok(
    await lease.acquire({ ...job, holder: 'node-b', now: at(240_000), tick: at(240_000), isDead }),
    'the next tick is taken from the dead holder at once',
  );
});
