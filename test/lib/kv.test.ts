import { Redis } from 'ioredis';
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

/** A bucket of 10 per 15 minutes (the accounts throttles' shape): one token every 90 s. */
const SLOW = { capacity: 10, ratePerSecond: 10 / 900 };

t.test('memory: a slow bucket holds through idle time; only what refilled is given back', async (t) => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const kv = new MemoryKeyValueStore({ now: () => now });
  t.teardown(() => kv.close());
  const take = () => kv.takeToken('slow', SLOW.capacity, SLOW.ratePerSecond);
  for (let i = 0; i < 10; i++) t.equal((await take()).allowed, true, `token ${i + 1}`);
  const refused = await take();
  t.equal(refused.allowed, false, 'the eleventh is refused');
  t.equal(refused.msUntilToken, 90_000, 'one token every 90 s');

  // 130 s of silence: the store's sweep (every 60 s) runs, and must not forget the bucket.
  now += 130_000;
  const after = [];
  for (let i = 0; i < 10; i++) after.push((await take()).allowed);
  t.same(
    after.filter(Boolean).length,
    Math.floor(130 / 90),
    `after 130 s idle only floor(130/90) = 1 more token: ${after.join(',')}`,
  );

  // Idle long enough to be full again: dropped or not, the bucket is full.
  now += 901_000;
  const full = [];
  for (let i = 0; i < 11; i++) full.push((await take()).allowed);
  t.same(full, [...Array(10).fill(true), false], 'full again after 15 minutes, and only 10');
});

t.test('memory: a bucket swept once full again starts full', async (t) => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const kv = new MemoryKeyValueStore({ now: () => now });
  t.teardown(() => kv.close());
  // A fast bucket (full within a second) idle for two minutes: swept, and as good as full.
  for (let i = 0; i < 5; i++) await kv.takeToken('fast', 5, 5);
  t.equal((await kv.takeToken('fast', 5, 5)).allowed, false);
  now += 120_000;
  await kv.setIfAbsent('other', 'x', 1000); // any write runs the due sweep
  const results = [];
  for (let i = 0; i < 6; i++) results.push((await kv.takeToken('fast', 5, 5)).allowed);
  t.same(results, [true, true, true, true, true, false]);
});

t.test('redis: an exhausted slow bucket lives until it is full again, not a minute', async (t) => {
  const prefix = `mailroom-test-kv-slow:${process.pid}:${Date.now()}:`;
  const kv = new RedisKeyValueStore(TEST_REDIS_URL, prefix);
  const redis = new Redis(TEST_REDIS_URL);
  t.teardown(async () => {
    await redis.del(`${prefix}slow`);
    await redis.quit();
    await kv.close();
  });
  for (let i = 0; i < 10; i++) await kv.takeToken('slow', SLOW.capacity, SLOW.ratePerSecond);
  const refused = await kv.takeToken('slow', SLOW.capacity, SLOW.ratePerSecond);
  t.equal(refused.allowed, false);
  t.ok(
    refused.msUntilToken > 89_000 && refused.msUntilToken <= 90_000,
    `next token in ~90 s (${refused.msUntilToken})`,
  );
  const ttl = await redis.pttl(`${prefix}slow`);
  t.ok(ttl > 899_000 && ttl <= 901_000, `the key lives until the bucket is full again (~900 s), not ~60 s: ${ttl} ms`);
  t.ok(Number(await redis.hget(`${prefix}slow`, 'tokens')) < 1, 'its state: empty');
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const later = await kv.takeToken('slow', SLOW.capacity, SLOW.ratePerSecond);
  t.equal(later.allowed, false, 'still refused a second later: the bucket kept its state');
  t.ok((await redis.pttl(`${prefix}slow`)) > 898_000, 'and its expiry moved with it');
});

for (const [name, make] of stores) {
  t.test(`${name}: returnToken gives back one token, never above capacity`, async (t) => {
    const kv = make();
    t.teardown(() => kv.close());
    const take = () => kv.takeToken('refund', 3, SLOW.ratePerSecond);
    for (let i = 0; i < 3; i++) t.equal((await take()).allowed, true);
    t.equal((await take()).allowed, false, 'empty');
    await kv.returnToken('refund', 3, SLOW.ratePerSecond);
    t.equal((await take()).allowed, true, 'the returned token can be taken again');
    t.equal((await take()).allowed, false, 'only one came back');
    for (let i = 0; i < 5; i++) await kv.returnToken('refund', 3, SLOW.ratePerSecond);
    const again = [];
    for (let i = 0; i < 4; i++) again.push((await take()).allowed);
    t.same(again, [true, true, true, false], 'returns stop at capacity');
    await kv.returnToken('absent', 3, SLOW.ratePerSecond);
    t.equal((await kv.takeToken('absent', 3, SLOW.ratePerSecond)).remaining, 2, 'an absent bucket stays full');
  });
}
