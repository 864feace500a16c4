import t from 'tap';
import { MemoryKeyValueStore } from '../../lib/kv/memory-kv.js';
import { RedisKeyValueStore } from '../../lib/kv/redis-kv.js';
import type { KeyValueStore } from '../../lib/kv/kv.js';
import { AuthAttemptRefused, AuthFailureThrottle, sourceOf } from '../../submission/auth-failure-throttle.js';
import { TEST_REDIS_URL } from '../helpers/test-database.js';

/** The submission AUTH failure limits on both stores (the Redis one against the real server). */
const stores: Array<[string, () => KeyValueStore]> = [
  ['memory', () => new MemoryKeyValueStore()],
  ['redis', () => new RedisKeyValueStore(TEST_REDIS_URL, `mailroom-test-auth:${process.pid}:${Date.now()}:`)],
];
const LIMITS = { perCredential: 10, perSource: 50, windowSeconds: 900 };
const wrong = Object.assign(new Error('API key is invalid'), { wrong: true });
const isFailure = (err: unknown) => (err as { wrong?: boolean }).wrong === true;

for (const [name, make] of stores) {
  t.test(`${name}: only failures use the limit up, and parallel attempts cannot pass it`, async (t) => {
    const kv = make();
    t.teardown(() => kv.close());
    const throttle = new AuthFailureThrottle(kv, LIMITS);
    let checks = 0;
    const outcome = (credential: string, source: string, result: 'ok' | 'wrong' | 'ours') =>
      throttle
        .attempt(
          credential,
          source,
          async () => {
            checks++;
            await new Promise((resolve) => setTimeout(resolve, 5));
            if (result === 'wrong') throw wrong;
            if (result === 'ours') throw new Error('database down');
            return 'ok';
          },
          isFailure,
        )
        .catch((err: unknown) => (err instanceof AuthAttemptRefused ? err.reply.code : (err as Error).message));

    for (let i = 0; i < 30; i++) t.equal(await outcome('good', '192.0.2.1', 'ok'), 'ok');
    for (let i = 0; i < 30; i++) t.equal(await outcome('bad', '192.0.2.1', 'ours'), 'database down');
    t.equal(checks, 60, 'successes and our own failures take nothing');

    checks = 0;
    const parallel = await Promise.all(Array.from({ length: 25 }, () => outcome('bad', '192.0.2.1', 'wrong')));
    t.equal(checks, 10, `25 parallel wrong attempts: only 10 are checked (${parallel.join(',')})`);
    t.equal(parallel.filter((r) => r === 454).length, 15, 'the others get 454 at once');
    t.equal(await outcome('good', '192.0.2.1', 'ok'), 'ok', 'another credential from that address still works');
  });
}

t.test('a store that is down refuses AUTH temporarily rather than allow unlimited guesses', async (t) => {
  const kv = new RedisKeyValueStore('redis://127.0.0.1:1', 'nowhere:');
  t.teardown(() => kv.close());
  const throttle = new AuthFailureThrottle(kv, LIMITS);
  const err = await throttle.attempt('any', '192.0.2.1', async () => 'checked', isFailure).catch((e: unknown) => e);
  t.type(err, AuthAttemptRefused);
  t.match((err as AuthAttemptRefused).reply, { code: 454, message: /^4\.7\.0 Temporary authentication failure/ });
});

t.test('an IPv6 client is counted per /64', async (t) => {
  t.equal(sourceOf('192.0.2.7'), '192.0.2.7');
  t.equal(sourceOf('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  t.equal(sourceOf('2001:db8:1:2::ffff'), '2001:db8:1:2::/64');
  t.equal(sourceOf('2001:0db8::1'), '2001:db8:0:0::/64');
  t.equal(sourceOf('1::2:3:4:5:6:7'), '1:0:2:3::/64');
  t.equal(sourceOf('fe80::1%eth0'), 'fe80:0:0:0::/64');
  t.equal(sourceOf('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
});
