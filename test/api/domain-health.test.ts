import t from 'tap';
import { bindZoneSnippet } from '../../core/platform/doctor/bind-zone.js';
import { expectedRecords } from '../../core/sending/domains/domain-records.js';
import { recordTargets } from '../../core/sending/domains/record-targets.js';
import { dmarcRecordValue } from '../../core/sending/domains/dmarc-record.js';
import { sessionInTeam } from '../helpers/accounts.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * GET /domains/{id}/health (the doctor's checks of one domain, live against the test DNS server)
 * and GET /domains/{id}/zone (the zone-file snippet of `mailroom dns-zone`), with a key and with
 * the dashboard's session cookie; and the per-record last_checked_at of GET /domains/{id}.
 */
const dns = await TestDnsServer.start();
const app = await startTestApp({
  env: { MAILROOM_DNS_SERVERS: dns.address },
  config: {
    mta: { hostname: 'mta.mailroom.test', regions: { 'us-east-1': { ips: ['192.0.2.10'] } } },
    inbound: { mxHost: 'mx.mailroom.test' },
    tracking: { host: 'track.mailroom.test' },
  },
});
t.teardown(async () => {
  await app.close();
  await dns.close();
});

const team = await app.createTeam('Health', 'unlimited');
const cookie = await sessionInTeam(app, 'health@example.com', team.teamId, 'owner');
const origin = new URL(app.url).origin;
const call = (path: string, token = team.token) => request(app.url, path, { token });
const asSession = (path: string) => request(app.url, path, { headers: { cookie, origin } });

dns.add({ type: 'SOA', name: 'health.test' });
const created = await request(app.url, '/domains', {
  method: 'POST',
  token: team.token,
  body: { name: 'mail.health.test', open_tracking: true, capabilities: { receiving: 'enabled' } },
});
if (created.status !== 201) throw new Error(`domain not created: ${created.text}`);
const domainId: string = created.body.id;
const domain = (await app.runtime.services.domains.repository.findById(domainId))!;
const keys = await app.runtime.services.domains.repository.keysOf(domainId);
const records = expectedRecords(domain, keys, recordTargets(app.runtime.config));
const selector = records.find((r) => r.record === 'DKIM')!.fqdn.split('.')[0]!;

/** The whole set-up as the API asked for it, with a DMARC policy of `dmarc`. */
function publishGood(dmarc = 'v=DMARC1; p=reject') {
  dns.clear();
  dns.add({ type: 'SOA', name: 'health.test' });
  for (const r of records) {
    if (r.type === 'TXT') dns.add({ type: 'TXT', name: r.fqdn, value: r.value });
    if (r.type === 'MX') dns.add({ type: 'MX', name: r.fqdn, exchange: r.value, priority: 10 });
    if (r.type === 'CNAME') dns.add({ type: 'CNAME', name: r.fqdn, value: r.value });
  }
  dns.add({ type: 'TXT', name: '_dmarc.mail.health.test', value: dmarc });
  dns.add({ type: 'TXT', name: '_smtp._tls.mail.health.test', value: 'v=TLSRPTv1; rua=mailto:tls@health.test' });
}
type Check = { id: string; label: string; status: string; detail: string; fix?: string };
const byId = (checks: Check[], id: string) => checks.find((c) => c.id === id)!;

t.test('a correct set-up passes every check, with a key and with the session cookie', async (t) => {
  publishGood();
  for (const res of [await call(`/domains/${domainId}/health`), await asSession(`/domains/${domainId}/health`)]) {
    t.equal(res.status, 200, res.text);
    t.same(Object.keys(res.body).sort(), ['checked_at', 'checks', 'domain_id', 'name', 'object', 'status']);
    t.match(res.body, { object: 'domain_health', domain_id: domainId, name: 'mail.health.test', status: 'pass' });
    t.ok(!Number.isNaN(Date.parse(res.body.checked_at)));
    const checks: Check[] = res.body.checks;
    t.same(
      checks.map((c) => c.id),
      ['spf', 'return_path_mx', `dkim:${selector}`, 'dmarc', 'tlsrpt', 'receiving_mx', 'tracking'],
    );
    t.same(
      checks.map((c) => c.label),
      ['SPF', 'Return-path MX', `DKIM (${selector})`, 'DMARC', 'TLS reporting', 'Receiving MX', 'Tracking CNAME'],
    );
    for (const check of checks) {
      t.equal(check.status, 'pass', `${check.id}: ${check.detail}`);
      t.same(Object.keys(check).sort(), ['detail', 'id', 'label', 'status'], 'no fix on a pass');
    }
  }
});

t.test('p=none warns with a fix; the page is warn', async (t) => {
  publishGood('v=DMARC1; p=none');
  const res = await call(`/domains/${domainId}/health`);
  t.equal(res.body.status, 'warn');
  t.match(byId(res.body.checks, 'dmarc'), { status: 'warn', detail: /p=none/, fix: /p=quarantine or p=reject/ });
});

t.test('missing and wrong records fail, each with the record to publish', async (t) => {
  publishGood();
  const spf = records.find((r) => r.id === 'spf')!;
  const tracking = records.find((r) => r.id === 'tracking')!;
  dns.remove((r) => r.type === 'TXT' && (r.name === spf.fqdn || r.name === '_dmarc.mail.health.test'));
  dns.remove((r) => r.type === 'TXT' && r.name === '_smtp._tls.mail.health.test');
  dns.remove((r) => r.type === 'MX' && r.name === spf.fqdn);
  dns.remove((r) => r.type === 'CNAME');
  dns.add({ type: 'CNAME', name: tracking.fqdn, value: 'elsewhere.test' });
  const res = await call(`/domains/${domainId}/health`);
  t.equal(res.body.status, 'fail');
  const checks: Check[] = res.body.checks;
  t.match(byId(checks, 'spf'), {
    status: 'fail',
    detail: /no SPF record/,
    fix: `Publish TXT ${spf.fqdn} "${spf.value}", as the only SPF record at that name (merge any other sender's mechanisms into it)`,
  });
  t.match(byId(checks, 'return_path_mx'), {
    status: 'fail',
    detail: /no MX record/,
    fix: `Publish MX ${spf.fqdn} "10 mta.mailroom.test"`,
  });
  t.match(byId(checks, 'dmarc'), {
    status: 'fail',
    fix: `Publish TXT _dmarc.mail.health.test "v=DMARC1; p=none; rua=mailto:dmarc-reports+${domainId}@mx.mailroom.test" (a starting policy: it refuses nothing; its reports come to this appliance)`,
  });
  t.match(byId(checks, 'tracking'), {
    status: 'fail',
    detail: /points at elsewhere\.test, not at track\.mailroom\.test/,
    fix: /^Publish CNAME links\.mail\.health\.test "track\.mailroom\.test"/,
  });
  t.match(byId(checks, 'tlsrpt'), {
    status: 'warn',
    detail: /no TLSRPT record at _smtp\._tls\.mail\.health\.test/,
    fix: 'Publish TXT _smtp._tls.mail.health.test "v=TLSRPTv1; rua=mailto:tlsrpt@mta.mailroom.test", as the only TLSRPT record at that name',
  });
  t.equal(byId(checks, `dkim:${selector}`).status, 'pass', 'the DKIM record is still there');
  t.equal(byId(checks, 'receiving_mx').status, 'pass');
});

t.test('a DNS server that fails: every check fails as "could not look up", fix says try again', async (t) => {
  publishGood();
  dns.servfail = true;
  t.teardown(() => void (dns.servfail = false));
  const res = await call(`/domains/${domainId}/health`);
  t.equal(res.body.status, 'fail');
  for (const check of res.body.checks as Check[]) {
    t.match(check, { status: 'fail', detail: /could not look up/, fix: /^Check again in a few minutes/ }, check.id);
  }
});

t.test('checks follow the features: no sending, no tracking, no receiving', async (t) => {
  publishGood();
  const patched = await request(app.url, `/domains/${domainId}`, {
    method: 'PATCH',
    token: team.token,
    body: { open_tracking: false, capabilities: { sending: 'disabled', receiving: 'enabled' } },
  });
  t.equal(patched.status, 200, patched.text);
  t.teardown(() =>
    request(app.url, `/domains/${domainId}`, {
      method: 'PATCH',
      token: team.token,
      body: { open_tracking: true, capabilities: { sending: 'enabled' } },
    }),
  );
  const res = await call(`/domains/${domainId}/health`);
  t.same(
    res.body.checks.map((c: Check) => c.id),
    ['receiving_mx'],
  );
});

t.test('zone: the text mailroom dns-zone prints, as text/plain', async (t) => {
  for (const res of [await call(`/domains/${domainId}/zone`), await asSession(`/domains/${domainId}/zone`)]) {
    t.equal(res.status, 200);
    t.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    // What cli/commands/doctor.command.ts's dnsZone writes: the records from the domain and its keys.
    const targets = recordTargets(app.runtime.config);
    t.equal(res.text, bindZoneSnippet(domain, records, targets.tlsRptRua, dmarcRecordValue(domain, targets)));
    t.match(res.text, /^; Mailroom records for mail\.health\.test \(zone health\.test, region us-east-1\)\n/);
    t.match(
      res.text,
      new RegExp(`\\n${selector}\\._domainkey\\.mail\\.health\\.test\\.\\t3600\\tIN\\tTXT\\t"v=DKIM1; k=rsa; p=`),
    );
    t.match(
      res.text,
      `\n_dmarc.mail.health.test.\t3600\tIN\tTXT\t"v=DMARC1; p=none; rua=mailto:dmarc-reports+${domainId}@mx.mailroom.test"\n`,
    );
    t.match(
      res.text,
      /\n_smtp\._tls\.mail\.health\.test\.\t3600\tIN\tTXT\t"v=TLSRPTv1; rua=mailto:tlsrpt@mta\.mailroom\.test"\n$/,
    );
  }
});

t.test('GET /domains/{id}: each record with its status and last_checked_at', async (t) => {
  const other = await request(app.url, '/domains', {
    method: 'POST',
    token: team.token,
    body: { name: 'b.health.test' },
  });
  t.ok(
    other.body.records.every((r: { last_checked_at: unknown }) => r.last_checked_at === null),
    'never checked',
  );
  publishGood();
  const verified = await request(app.url, `/domains/${domainId}/verify`, { method: 'POST', token: team.token });
  t.equal(verified.status, 200);
  const got = await call(`/domains/${domainId}`);
  const lastChecked = (await app.runtime.services.domains.repository.findById(domainId))!.lastCheckedAt!;
  for (const record of got.body.records) {
    t.equal(record.last_checked_at, lastChecked.toISOString(), `${record.record} ${record.type}`);
    t.equal(record.status, 'verified');
  }
});

t.test('refusals: no key, a sending key, an unknown or malformed id, another team', async (t) => {
  const other = await app.createTeam('Other');
  const sending = await app.runtime.services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });
  for (const route of ['health', 'zone']) {
    errorShape(t, await request(app.url, `/domains/${domainId}/${route}`), 401, 'missing_api_key');
    errorShape(t, await call(`/domains/${domainId}/${route}`, sending.token), 401, 'restricted_api_key');
    errorShape(t, await call(`/domains/0199a0a0-0000-7000-8000-000000000000/${route}`), 404, 'not_found');
    errorShape(t, await call(`/domains/${domainId}/${route}`, other.token), 404, 'not_found');
    errorShape(t, await call(`/domains/not-an-id/${route}`), 422, 'invalid_parameter');
  }
});
