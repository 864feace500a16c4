import t from 'tap';
import { reverseName, reversedLabels } from '../../../../core/platform/doctor/reverse-names.js';
import { SpfInspector } from '../../../../core/platform/doctor/spf.js';
import { createDnsLookup } from '../../../../lib/dns/dns-resolver.js';
import { TestDnsServer } from '../../../helpers/dns-server.js';

const dns = await TestDnsServer.start();
t.teardown(() => dns.close());
const lookup = createDnsLookup({ servers: [dns.address], timeoutMs: 1000 });
t.beforeEach(() => dns.clear());

t.test('reverse names of IPv4 and IPv6 addresses', async (t) => {
  t.equal(reverseName('192.0.2.10'), '10.2.0.192.in-addr.arpa');
  t.equal(reversedLabels('::ffff:192.0.2.10'), '10.2.0.192', 'a mapped address is its IPv4 address');
  t.equal(reverseName('2001:db8::1'), '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa');
});

t.test('first match wins, CIDRs, a and mx, include and redirect are followed', async (t) => {
  dns.add(
    {
      type: 'TXT',
      name: 'd.test',
      value: 'v=spf1 -ip4:192.0.2.13 ip4:192.0.2.0/28 a:host.d.test mx include:inc.test redirect=r.test',
    },
    { type: 'A', name: 'host.d.test', address: '198.51.100.7' },
    { type: 'MX', name: 'd.test', exchange: 'mx.d.test' },
    { type: 'A', name: 'mx.d.test', address: '198.51.100.8' },
    { type: 'TXT', name: 'inc.test', value: 'v=spf1 ip6:2001:db8::/32 -all' },
    { type: 'TXT', name: 'r.test', value: 'v=spf1 ip4:203.0.113.5 ~all' },
  );
  const spf = new SpfInspector(lookup);
  t.equal(await spf.evaluate('192.0.2.10', 'd.test'), 'pass');
  t.equal(await spf.evaluate('192.0.2.13', 'd.test'), 'fail', 'the earlier -ip4 decides');
  t.equal(await spf.evaluate('198.51.100.7', 'd.test'), 'pass', 'a:');
  t.equal(await spf.evaluate('198.51.100.8', 'd.test'), 'pass', 'mx');
  t.equal(await spf.evaluate('2001:db8::5', 'd.test'), 'pass', 'include');
  t.equal(await spf.evaluate('203.0.113.5', 'd.test'), 'pass', 'redirect');
  t.equal(await spf.evaluate('203.0.113.6', 'd.test'), 'softfail', "redirect's ~all");
  t.same(await spf.lookupCount('d.test'), { count: 4, errors: [] }, 'a, mx, include, redirect');
});

t.test('look-ups are counted through includes; errors are named', async (t) => {
  const includes = Array.from({ length: 6 }, (_, i) => `include:i${i}.test`).join(' ');
  dns.add({ type: 'TXT', name: 'big.test', value: `v=spf1 ${includes} -all` });
  for (let i = 0; i < 6; i++) dns.add({ type: 'TXT', name: `i${i}.test`, value: 'v=spf1 a mx -all' });
  dns.add(
    { type: 'TXT', name: 'two.test', value: 'v=spf1 -all' },
    { type: 'TXT', name: 'two.test', value: 'v=spf1 +all' },
  );
  dns.add({ type: 'TXT', name: 'dangling.test', value: 'v=spf1 include:nothing.test -all' });
  const spf = new SpfInspector(lookup);
  t.equal((await spf.lookupCount('big.test')).count, 18);
  t.equal(await spf.evaluate('192.0.2.1', 'two.test'), 'permerror');
  t.equal(await spf.evaluate('192.0.2.1', 'dangling.test'), 'permerror');
  t.same((await spf.lookupCount('dangling.test')).errors, ['nothing.test has no SPF record']);
  t.equal(await spf.evaluate('192.0.2.1', 'none.test'), 'none');
  dns.servfail = true;
  t.equal(await new SpfInspector(lookup).evaluate('192.0.2.1', 'big.test'), 'temperror');
});
