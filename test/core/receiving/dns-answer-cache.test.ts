import t from 'tap';
import { cachingResolver } from '../../../core/receiving/dns-answer-cache.js';

const failure = (code: string) => Object.assign(new Error(code), { code });

t.test('answers are reused within the bound, asked again after it', async (t) => {
  let now = 0;
  const asked: string[] = [];
  const resolve = cachingResolver(
    async (name, rrtype) => {
      asked.push(`${rrtype} ${name}`);
      return [[`v=spf1 -all ${asked.length}`]];
    },
    { ttlMs: 1000, maxEntries: 10, now: () => now },
  );
  t.same(await resolve('example.com', 'TXT'), [['v=spf1 -all 1']]);
  t.same(await resolve('EXAMPLE.com', 'TXT'), [['v=spf1 -all 1']], 'names compare without case');
  await resolve('example.com', 'MX');
  t.same(asked, ['TXT example.com', 'MX example.com'], 'one query per name and type');
  now = 1001;
  t.same(await resolve('example.com', 'TXT'), [['v=spf1 -all 3']], 'asked again once the bound has passed');
});

t.test('concurrent look-ups share one query', async (t) => {
  let queries = 0;
  const resolve = cachingResolver(
    async () => {
      queries++;
      await new Promise((done) => setTimeout(done, 10));
      return ['1.2.3.4'];
    },
    { ttlMs: 1000, maxEntries: 10 },
  );
  await Promise.all([resolve('a.test', 'A'), resolve('a.test', 'A'), resolve('a.test', 'A')]);
  t.equal(queries, 1);
});

t.test('no such name is an answer; a timeout is not kept', async (t) => {
  let queries = 0;
  const resolve = cachingResolver(
    async (name) => {
      queries++;
      throw failure(name === 'gone.test' ? 'ENOTFOUND' : 'ETIMEOUT');
    },
    { ttlMs: 1000, maxEntries: 10 },
  );
  for (let i = 0; i < 2; i++) await t.rejects(resolve('gone.test', 'TXT'), { code: 'ENOTFOUND' });
  t.equal(queries, 1, 'NXDOMAIN kept');
  for (let i = 0; i < 2; i++) await t.rejects(resolve('slow.test', 'TXT'), { code: 'ETIMEOUT' });
  t.equal(queries, 3, 'a timeout asked again');
});

t.test('the oldest answer goes first past maxEntries', async (t) => {
  const asked: string[] = [];
  const resolve = cachingResolver(
    async (name) => {
      asked.push(name);
      return [];
    },
    { ttlMs: 1000, maxEntries: 2 },
  );
  for (const name of ['a', 'b', 'c', 'b', 'a']) await resolve(name, 'TXT');
  t.same(asked, ['a', 'b', 'c', 'a']);
});
