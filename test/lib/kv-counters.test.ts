import t from 'tap';
import { MemoryKeyValueStore } from '../../lib/kv/memory-kv.js';
import { RedisKeyValueStore } from '../../lib/kv/redis-kv.js';
import type { KeyValueStore } from '../../lib/kv/kv.js';
import { TEST_REDIS_URL } from '../helpers/test-database.js';

/** Capped counters and slots (traffic shaping, warm-up) behave the same in both stores. */
const stores: Array<[string, () => KeyValueStore]> = [
  ['memory', () => new MemoryKeyValueStore()],
  ['redis', () => new RedisKeyValueStore(TEST_REDIS_URL, `mailroom-test-kv-counters:${process.pid}:${Date.now()}:`)],
];

for (const [name, make] of stores) {
  t.test(`${name}: incrementUpTo counts up to the limit and no further`, async (t) => {
    const kv = make();
    t.teardown(() => kv.close());
    t.equal(await kv.counter('c'), 0, 'absent is 0');
    t.equal(await kv.incrementUpTo('c', 30, 50, 60_000), 30);
    t.equal(await kv.incrementUpTo('c', 30, 50, 60_000), null, 'a step past the limit is refused whole');
    t.equal(await kv.counter('c'), 30, 'and changes nothing');
    t.equal(await kv.incrementUpTo('c', 20, 50, 60_000), 50, 'up to the limit exactly');
    t.equal(await kv.incrementUpTo('c', 1, 50, 60_000), null);
    // Many at once: never past the limit.
    const results = await Promise.all(Array.from({ length: 20 }, () => kv.incrementUpTo('d', 1, 7, 60_000)));
    t.equal(results.filter((r) => r !== null).length, 7, 'concurrent increments stop at the limit');
    await kv.delete('d');
    t.equal(await kv.counter('d'), 0, 'delete removes a counter');
  });

  t.test(`${name}: a counter expires after its ttl`, async (t) => {
    const kv = make();
    t.teardown(() => kv.close());
    await kv.incrementUpTo('short', 5, 10, 100);
    await new Promise((resolve) => setTimeout(resolve, 200));
    t.equal(await kv.counter('short'), 0);
    t.equal(await kv.incrementUpTo('short', 10, 10, 100), 10, 'starts afresh');
  });

  t.test(`${name}: slots are a semaphore across holders; an unreleased slot frees itself`, async (t) => {
    const kv = make();
    t.teardown(() => kv.close());
    t.ok(await kv.acquireSlot('s', 'a', 2, 60_000));
    t.ok(await kv.acquireSlot('s', 'b', 2, 60_000));
    t.notOk(await kv.acquireSlot('s', 'c', 2, 60_000), 'the third holder waits');
    await kv.releaseSlot('s', 'a');
    t.ok(await kv.acquireSlot('s', 'c', 2, 60_000), 'a released slot is free');
    t.ok(await kv.acquireSlot('t', 'dead', 1, 100));
    t.notOk(await kv.acquireSlot('t', 'alive', 1, 100));
    await new Promise((resolve) => setTimeout(resolve, 200));
    t.ok(await kv.acquireSlot('t', 'alive', 1, 100), 'a holder that never released (died) expires');
  });
}
