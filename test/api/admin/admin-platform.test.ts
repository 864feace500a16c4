import t from 'tap';
import { declared } from '../../helpers/declared-schema.js';
import { TestDnsServer } from '../../helpers/dns-server.js';
import { errorShape, request, type RequestOptions } from '../../helpers/http.js';
import { createOperator } from '../../helpers/operator.js';
import { startTestApp } from '../../helpers/test-app.js';
import { addVerifiedDomain } from '../../helpers/verified-domain.js';

/** The admin API's IP pools and deliverability (mailroom doctor's checks), against a test DNS server. */
const dns = await TestDnsServer.start();
t.teardown(() => dns.close());
const app = await startTestApp({
  env: { MAILROOM_DNS_SERVERS: dns.address },
  config: {
    mta: {
      hostname: 'mta.mailroom.test',
      regions: {
        'us-east-1': { ips: [{ address: '192.0.2.10', helo: 'out1.mailroom.test' }, '192.0.2.11'] },
        'eu-west-1': { ips: ['192.0.2.20'] },
      },
      disabledIps: ['192.0.2.20'],
    },
  },
});
t.teardown(() => app.close());
const operator = await createOperator(app);
const origin = new URL(app.url).origin;
const admin = (path: string, options: RequestOptions = {}) =>
  request(app.url, path, { ...options, headers: { cookie: operator.cookie, origin, ...options.headers } });

type Address = { address: string; in_use: boolean; disabled_in_config: boolean; ptr: unknown; rests: unknown[] };
const addressOf = (body: { regions: Array<{ addresses: Address[] }> }, address: string) =>
  body.regions.flatMap((region) => region.addresses).find((entry) => entry.address === address)!;

// 192.0.2.10: forward-confirmed and the HELO; 192.0.2.11: no PTR at all.
dns.setPtr('192.0.2.10', 'out1.mailroom.test');
dns.add({ type: 'A', name: 'out1.mailroom.test', address: '192.0.2.10' });
// 192.0.2.10 is listed on the test block list.
dns.add({ type: 'A', name: '10.2.0.192.bl.test', address: '127.0.0.2' });

t.test('GET /admin/ip-pools: regions, addresses, HELO, disabled, rests; PTR on request', async (t) => {
  await app.runtime.services.deliveries.blocks.strike(
    '192.0.2.11',
    'gmail.com',
    '421 too many connections',
    1,
    new Date(Date.now() + 3_600_000),
    new Date(),
  );
  const res = await admin('/admin/ip-pools');
  t.equal(res.status, 200);
  declared(t, 'GET', '/admin/ip-pools', res);
  const regions = res.body.regions.map((region: { region: string }) => region.region);
  t.same(regions.slice(0, 2), ['us-east-1', 'eu-west-1'], 'every region, in order');
  t.same(
    res.body.regions[0].addresses.map((entry: Address) => entry.address),
    ['192.0.2.10', '192.0.2.11'],
  );
  t.match(addressOf(res.body, '192.0.2.10'), { helo: 'out1.mailroom.test', in_use: true, ptr: null });
  t.match(addressOf(res.body, '192.0.2.20'), { in_use: false, disabled_in_config: true });
  t.match(addressOf(res.body, '192.0.2.11').rests, [{ destination: 'gmail.com', strikes: 1, reason: /421/ }]);

  const checked = await admin('/admin/ip-pools?check_ptr=true');
  t.match(addressOf(checked.body, '192.0.2.10').ptr, { status: 'ok' });
  t.match(addressOf(checked.body, '192.0.2.11').ptr, { status: 'fail', detail: /no PTR record/ });
  errorShape(t, await admin('/admin/ip-pools?check_ptr=maybe'), 422, 'invalid_parameter');
});

t.test('disable and enable an address; end a rest; refuse an address in no pool', async (t) => {
  const disabled = await admin('/admin/ip-pools/addresses/192.0.2.10/disable', {
    method: 'POST',
    body: { reason: 'listed on bl.test' },
  });
  t.equal(disabled.status, 200);
  declared(t, 'POST', '/admin/ip-pools/addresses/:address/disable', disabled);
  t.same(disabled.body, {
    object: 'egress_address',
    address: '192.0.2.10',
    regions: ['us-east-1'],
    reason: 'listed on bl.test',
    disabled: true,
  });
  const pools = await admin('/admin/ip-pools');
  t.match(addressOf(pools.body, '192.0.2.10'), {
    in_use: false,
    disabled_by_operator: { reason: 'listed on bl.test' },
  });
  const resting = await app.runtime.services.deliveries.restingEgress('example.com');
  t.ok(resting.has('192.0.2.10'), 'the MTA stops using it');

  const enabled = await admin('/admin/ip-pools/addresses/192.0.2.10/enable', { method: 'POST', body: {} });
  t.equal(enabled.status, 200);
  declared(t, 'POST', '/admin/ip-pools/addresses/:address/enable', enabled);
  t.match(enabled.body, { address: '192.0.2.10', destination: null, cleared: 1, still_disabled_in_config: false });
  t.match(addressOf((await admin('/admin/ip-pools')).body, '192.0.2.10'), { in_use: true });

  const rest = await admin('/admin/ip-pools/addresses/192.0.2.11/enable', {
    method: 'POST',
    body: { destination: 'Gmail.com' },
  });
  t.match(rest.body, { destination: 'gmail.com', cleared: 1 });
  t.same(addressOf((await admin('/admin/ip-pools')).body, '192.0.2.11').rests, [], 'the rest ended');
  const config = await admin('/admin/ip-pools/addresses/192.0.2.20/enable', { method: 'POST', body: {} });
  t.equal(config.body.still_disabled_in_config, true, 'the configuration list is not the operator switch');

  errorShape(
    t,
    await admin('/admin/ip-pools/addresses/198.51.100.1/disable', { method: 'POST', body: {} }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await admin('/admin/ip-pools/addresses/192.0.2.10/enable', { method: 'POST', body: { destination: 'no such' } }),
    400,
    'validation_error',
  );
});

t.test('GET /admin/deliverability: per IP and per domain, each failure with its fix; block lists', async (t) => {
  const { token } = await app.createTeam('Sender');
  await addVerifiedDomain(app, dns, token, 'example.test');
  // SPF and DKIM stay as verification published them; DMARC is missing.
  const res = await admin('/admin/deliverability?dnsbl_zones=bl.test');
  t.equal(res.status, 200);
  declared(t, 'GET', '/admin/deliverability', res);
  type Check = { check: string; subject: string; subject_kind: string; status: string; fix: string | null };
  const checks = res.body.checks as Check[];
  const find = (check: string, subject: string) => checks.find((c) => c.check === check && c.subject === subject)!;
  t.match(find('ptr', '192.0.2.10'), { subject_kind: 'ip', status: 'ok', fix: null });
  t.match(find('ptr', '192.0.2.11'), { subject_kind: 'ip', status: 'fail', fix: /reverse DNS \(PTR\)/ });
  t.match(find('dnsbl', '192.0.2.10'), { status: 'fail', fix: /disable/ });
  t.match(find('dmarc', 'example.test'), {
    subject_kind: 'domain',
    status: 'fail',
    fix: /Publish TXT _dmarc\.example\.test/,
  });
  t.ok(
    checks.some((c) => c.subject_kind === 'system'),
    'this node’s checks too',
  );
  for (const entry of checks)
    t.equal(entry.fix === null, entry.status === 'ok', `${entry.check} ${entry.subject}: a fix for each failure`);
  const { ok, warn, fail } = res.body.summary;
  t.equal(ok + warn + fail, checks.length, 'the summary counts every check');
  t.match(res.body.blocklists, [
    { address: '192.0.2.10', zone: 'bl.test', listed: true, status: 'fail' },
    { address: '192.0.2.11', zone: 'bl.test', listed: false },
    { address: '192.0.2.20', zone: 'bl.test', listed: false },
  ]);
  const noZones = await admin('/admin/deliverability?dnsbl_zones=');
  t.same(noZones.body.blocklists, [], 'no zones: no look-ups');
  errorShape(t, await admin('/admin/deliverability?dnsbl_zones=not..a..zone'), 400, 'validation_error');
});
