import t from 'tap';
import { cachingLookup } from '../../lib/dns/caching-lookup.js';
import { createDnsLookup } from '../../lib/dns/dns-resolver.js';
import { TestDnsServer } from '../helpers/dns-server.js';

const dns = await TestDnsServer.start();
t.teardown(() => dns.close());
const resolver = createDnsLookup({ servers: [dns.address], timeoutMs: 500 });
dns.add(
  { type: 'MX', name: 'dest.test', exchange: 'mx.dest.test', priority: 10 },
  { type: 'A', name: 'mx.dest.test', address: '127.0.0.10' },
);

let clock = 1_000_000;
const now = () => clock;

t.test('a found answer is reused while fresh, then asked again', async (t) => {
  const lookup = cachingLookup(resolver, { freshMs: 10_000, staleMs: 60_000, now });
  const before = dns.queries;
  t.same(await lookup.mx('dest.test'), { kind: 'found', values: [{ exchange: 'mx.dest.test', priority: 10 }] });
  t.same(await lookup.addresses('MX.dest.test'), { kind: 'found', values: ['127.0.0.10'] });
  const asked = dns.queries - before;
  t.equal(asked, 3, 'MX, A and AAAA asked once');
  await lookup.mx('DEST.test.');
  await lookup.mx('dest.test');
  await lookup.addresses('mx.dest.test');
  t.equal(dns.queries - before, asked + 1, 'names differing only in case are one entry; "dest.test." is another name');

  dns.remove((r) => r.type === 'MX');
  dns.add({ type: 'MX', name: 'dest.test', exchange: 'mx2.dest.test', priority: 5 });
  t.same(
    await lookup.mx('dest.test'),
    { kind: 'found', values: [{ exchange: 'mx.dest.test', priority: 10 }] },
    'still the remembered answer',
  );
  clock += 10_000;
  t.same(
    await lookup.mx('dest.test'),
    { kind: 'found', values: [{ exchange: 'mx2.dest.test', priority: 5 }] },
    'the new answer once the old one is 10 s old',
  );
  dns.remove((r) => r.name === 'dest.test');
  dns.add({ type: 'MX', name: 'dest.test', exchange: 'mx.dest.test', priority: 10 });
});

t.test('while the resolver fails temporarily, an answer up to staleMs old stands in', async (t) => {
  const lookup = cachingLookup(resolver, { freshMs: 1_000, staleMs: 60_000, now });
  const found = await lookup.mx('dest.test');
  t.equal(found.kind, 'found');
  dns.servfail = true;
  t.teardown(() => (dns.servfail = false));
  clock += 30_000;
  t.same(await lookup.mx('dest.test'), found, 'SERVFAIL: the 30 s old answer');
  clock += 30_000;
  t.same(
    await lookup.mx('dest.test'),
    { kind: 'temporary', error: 'ESERVFAIL' },
    'SERVFAIL: nothing younger than 60 s, the failure itself',
  );
  t.same(
    await lookup.mx('never-seen.test'),
    { kind: 'temporary', error: 'ESERVFAIL' },
    'a name never answered: the failure',
  );
});

t.test('"none" is never kept, failures are not remembered, 0 turns caching off', async (t) => {
  const lookup = cachingLookup(resolver, { freshMs: 10_000, staleMs: 60_000, now });
  t.same(await lookup.mx('later.test'), { kind: 'none' });
  dns.add({ type: 'MX', name: 'later.test', exchange: 'mx.dest.test' });
  t.same(
    await lookup.mx('later.test'),
    { kind: 'found', values: [{ exchange: 'mx.dest.test', priority: 10 }] },
    'a record added after a "none" is seen at once',
  );

  const off = cachingLookup(resolver, { freshMs: 0, staleMs: 0, now });
  const before = dns.queries;
  await off.mx('dest.test');
  await off.mx('dest.test');
  t.equal(dns.queries - before, 2, 'every call asks');
});

t.test('concurrent look-ups of one name share one query; other look-ups pass through', async (t) => {
  const lookup = cachingLookup(resolver, { freshMs: 10_000, staleMs: 60_000, now: () => (clock += 1_000_000) });
  const before = dns.queries;
  const answers = await Promise.all([lookup.mx('dest.test'), lookup.mx('dest.test'), lookup.mx('dest.test')]);
  t.equal(dns.queries - before, 1, 'one query for three callers');
  t.same(answers[1], answers[0]);
  dns.add({ type: 'TXT', name: 'dest.test', value: 'v=spf1 -all' });
  t.same(await lookup.txt('dest.test'), { kind: 'found', values: ['v=spf1 -all'] });
});
