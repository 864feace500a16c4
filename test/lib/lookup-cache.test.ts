import t from 'tap';
import { LookupCache } from '../../lib/cache/lookup-cache.js';

const clock = () => {
  const c = { now: 0, fn: () => c.now };
  return c;
};

t.test('a found value is kept for the TTL, counted from the read', async (t) => {
  const time = clock();
  const cache = new LookupCache(1000, 100, time.fn);
  let loads = 0;
  const load = async () => ({ n: ++loads });
  t.same(await cache.get('k', load), { n: 1 });
  time.now = 999;
  t.same(await cache.get('k', load), { n: 1 }, 'served from the cache inside the TTL');
  time.now = 1000;
  t.same(await cache.get('k', load), { n: 2 }, 'read again once the TTL has passed');
});

t.test('not found is never cached; a TTL of 0 turns the cache off', async (t) => {
  const cache = new LookupCache(1000);
  let loads = 0;
  for (let i = 0; i < 3; i++) await cache.get('missing', async () => (loads++, undefined));
  t.equal(loads, 3);
  const off = new LookupCache(0);
  let offLoads = 0;
  for (let i = 0; i < 3; i++) await off.get('k', async () => ({ n: ++offLoads }));
  t.equal(offLoads, 3);
  t.notOk(off.enabled);
});

t.test('invalidate forgets everything at once and tells the listeners unless told not to', async (t) => {
  const cache = new LookupCache(60_000);
  let heard = 0;
  cache.onInvalidate(() => heard++);
  let loads = 0;
  await cache.get('k', async () => ({ n: ++loads }));
  cache.invalidate();
  t.same(await cache.get('k', async () => ({ n: ++loads })), { n: 2 });
  t.equal(heard, 1);
  cache.invalidate({ propagate: false });
  t.equal(heard, 1, 'news from another worker is not echoed');
});

t.test('a load in flight across an invalidate is answered but not kept', async (t) => {
  const cache = new LookupCache(60_000);
  let release!: () => void;
  const slow = cache.get('k', () => new Promise<{ v: string }>((resolve) => (release = () => resolve({ v: 'old' }))));
  cache.invalidate();
  // A request after the change does not join the load that started before it.
  const fresh = cache.get('k', async () => ({ v: 'new' }));
  release();
  t.same(await slow, { v: 'old' });
  t.same(await fresh, { v: 'new' });
  t.same(
    await cache.get('k', async () => ({ v: 'unexpected' })),
    { v: 'new' },
    'the row read after the change is the one kept',
  );
});

t.test('concurrent misses of one key share one load', async (t) => {
  const cache = new LookupCache(60_000);
  let loads = 0;
  const values = await Promise.all(
    Array.from({ length: 20 }, () =>
      cache.get('k', async () => (await new Promise((r) => setTimeout(r, 5)), { n: ++loads })),
    ),
  );
  t.equal(loads, 1);
  t.ok(values.every((v) => v?.n === 1));
});

t.test('update replaces a kept value without extending it; the oldest entry leaves when full', async (t) => {
  const time = clock();
  const cache = new LookupCache(1000, 2, time.fn);
  await cache.get('a', async () => ({ v: 1 }));
  time.now = 500;
  cache.update('a', { v: 2 });
  t.same(await cache.get('a', async () => ({ v: 3 })), { v: 2 });
  cache.update('absent', { v: 9 });
  t.same(await cache.get('absent', async () => ({ v: 4 })), { v: 4 }, 'update never adds');
  await cache.get('b', async () => ({ v: 5 }));
  t.same(await cache.get('a', async () => ({ v: 6 })), { v: 6 }, 'a, the oldest, made room');
  time.now = 1499;
  t.same(await cache.get('b', async () => ({ v: 7 })), { v: 5 }, 'b, read at 500, is still kept at 1499');
  time.now = 1500;
  t.same(await cache.get('b', async () => ({ v: 8 })), { v: 8 }, 'and expires at 1500');
});
