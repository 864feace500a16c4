import t from 'tap';
import { MemoryKeyValueStore } from '../../lib/kv/memory-kv.js';
import { RedisKeyValueStore } from '../../lib/kv/redis-kv.js';
import type { KeyValueStore } from '../../lib/kv/kv.js';
import { TEST_REDIS_URL } from '../helpers/test-database.js';

/** The same behaviour from both implementations; the Redis one against the real server. */
const stores: Array<[string, () => KeyValueStore]> = [
  ['memory', () => new MemoryKeyValueStore()],
  ['redis', () => new RedisKeyValueStore(TEST_REDIS_URL, `mailroom-test-kv:${process.pid}:${Date.now()}:`)],
];

for (const [name, make] of stores) {
  t.test(name, async (t) => {
    const kv = make();
    t.teardown(() => kv.close());
    await kv.ping();

    const results = [];
    for (let i = 0; i < 12; i++) results.push(await kv.takeToken('bucket', 10, 10));
    t.same(
      results.slice(0, 10).map((r) => r.allowed),
      Array(10).fill(true),
      'capacity tokens',
    );
    // Time passes between calls (and refills a little), so only the shape is exact.
    t.equal(results[0]!.remaining, 9);
    t.ok(
      results.slice(0, 10).every((r, i, all) => i === 0 || r.remaining <= all[i - 1]!.remaining + 1),
      'remaining counts down',
    );
    const refused = results[11]!;
    t.equal(refused.allowed, false);
    t.ok(refused.msUntilToken > 0 && refused.msUntilToken <= 100, `next token within 100 ms (${refused.msUntilToken})`);
    t.ok(
      refused.msUntilFull > 500 && refused.msUntilFull <= 1000,
      `full again within a second (${refused.msUntilFull})`,
    );
    await new Promise((resolve) => setTimeout(resolve, 250));
    t.equal((await kv.takeToken('bucket', 10, 10)).allowed, true, 'refills over time');

    t.equal(await kv.setIfAbsent('lock', 'a', 1000), true);
    t.equal(await kv.setIfAbsent('lock', 'b', 1000), false);
    t.equal(await kv.get('lock'), 'a');
    await kv.delete('lock');
    t.equal(await kv.get('lock'), null);
    t.equal(await kv.setIfAbsent('short', 'x', 50), true);
    await new Promise((resolve) => setTimeout(resolve, 120));
    t.equal(await kv.get('short'), null, 'expires');
  });
}
