import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { recordTargets } from '../../core/sending/domains/record-targets.js';
import { exitCodeOf, formatResults, runDoctor } from '../../core/platform/doctor/doctor.js';
import type { CheckResult } from '../../core/platform/doctor/doctor.types.js';
import { createPtrLookup } from '../../core/platform/doctor/reverse-names.js';
import { generateDkimKey, dkimRecordValue } from '../../core/sending/domains/dkim-keys.js';
import { expectedRecords } from '../../core/sending/domains/domain-records.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { writeSelfSignedCertificate } from '../helpers/self-signed-certificate.js';
import { startTestApp } from '../helpers/test-app.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';
import { startSubmissionServer } from '../../submission/submission-server.js';
import { cliEnvFor } from '../helpers/spawn-mailroom.js';

const run = promisify(execFile);
const DAY = 24 * 3600 * 1000;
const MASTER_KEY = 'doctor-test-master-key-'.padEnd(40, 'k');

/** A certificate for mx.mailroom.test valid for `days` days (key.pem, cert.pem in a fresh directory). */
function certificate(days: number) {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-doctor-cert-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return writeSelfSignedCertificate(dir, 'mx.mailroom.test', 'DNS:mx.mailroom.test', days);
}

const dns = await TestDnsServer.start();
t.teardown(() => dns.close());
const cert = certificate(90);
const app = await startTestApp({
  env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_MASTER_KEY: MASTER_KEY },
  config: {
    mta: {
      hostname: 'mta.mailroom.test',
      regions: {
        'us-east-1': { ips: [{ address: '192.0.2.10', helo: 'out1.mailroom.test' }, '192.0.2.11'] },
        'eu-west-1': { ips: ['192.0.2.20'] },
        'sa-east-1': { ips: ['192.0.2.20'] },
        'ap-northeast-1': { ips: ['192.0.2.20'] },
      },
    },
    inbound: { mxHost: 'mx.mailroom.test', ...cert },
    submission: { ...cert, port: 0, tlsPort: 0 },
  },
});
t.teardown(() => app.close());
const config = app.runtime.config;
// The real command talks to this node's submission server as a client does (EHLO, STARTTLS).
const submission = await startSubmissionServer(app.runtime);
t.teardown(() => submission.close());

const { token } = await app.createTeam();
dns.add({ type: 'MX', name: 'example.test', exchange: 'mx.mailroom.test' });
const domainId = await addVerifiedDomain(app, dns, token, 'example.test', {
  capabilities: { receiving: 'enabled' },
});
const domain = (await app.runtime.services.domains.repository.findById(domainId))!;
const keys = await app.runtime.services.domains.repository.keysOf(domainId);
const records = expectedRecords(domain, keys, recordTargets(config));
const dkim = records.find((record) => record.record === 'DKIM')!;
const spf = records.find((record) => record.id === 'spf')!;

/** The whole zone as a correct set-up publishes it. */
function publishGood() {
  dns.clear();
  dns.add({ type: 'SOA', name: 'example.test' });
  for (const record of records) {
    if (record.type === 'TXT') dns.add({ type: 'TXT', name: record.fqdn, value: record.value });
    if (record.type === 'MX') dns.add({ type: 'MX', name: record.fqdn, exchange: record.value, priority: 10 });
    if (record.type === 'CNAME') dns.add({ type: 'CNAME', name: record.fqdn, value: record.value });
  }
  dns.add({ type: 'TXT', name: '_dmarc.example.test', value: 'v=DMARC1; p=reject; rua=mailto:d@example.test' });
  dns.add({ type: 'TXT', name: '_smtp._tls.example.test', value: 'v=TLSRPTv1; rua=mailto:tls@example.test' });
  dns.setPtr('192.0.2.10', 'out1.mailroom.test');
  dns.setPtr('192.0.2.11', 'mta.mailroom.test');
  dns.setPtr('192.0.2.20', 'mta.mailroom.test');
  dns.add(
    { type: 'A', name: 'out1.mailroom.test', address: '192.0.2.10' },
    { type: 'A', name: 'mta.mailroom.test', address: '192.0.2.11' },
    { type: 'A', name: 'mta.mailroom.test', address: '192.0.2.20' },
  );
}
const replaceTxt = (name: string, value?: string) => {
  dns.remove((record) => record.type === 'TXT' && record.name === name);
  if (value !== undefined) dns.add({ type: 'TXT', name, value });
};

const doctor = (options: { now?: Date; zones?: string[] } = {}) =>
  runDoctor({
    config,
    lookup: app.runtime.lookup,
    ptr: createPtrLookup({ servers: config.dns.servers, timeoutMs: config.dns.timeoutMs }),
    db: app.runtime.db,
    now: () => options.now ?? new Date(),
    dnsblZones: options.zones ?? ['bl.test', 'bl2.test'],
  });
const find = (results: CheckResult[], check: string, subject?: string) => {
  const found = results.filter(
    (entry) => entry.check === check && (subject === undefined || entry.subject === subject),
  );
  if (found.length !== 1)
    throw new Error(`${found.length} results for ${check} ${subject ?? ''}: ${formatResults(results)}`);
  return found[0]!;
};
const notOk = (results: CheckResult[]) => results.filter((entry) => entry.status !== 'ok');

t.beforeEach(() => publishGood());

t.test('a correct set-up: every check ok, exit code 0', async (t) => {
  const results = await doctor();
  t.same(notOk(results), [], formatResults(results));
  t.same(
    [...new Set(results.map((entry) => entry.check))],
    [
      'master_key',
      'inbound_certificate',
      'submission_certificate',
      'durability',
      'clock_skew',
      'ptr',
      'dnsbl',
      'spf',
      'dkim',
      'dmarc',
      'tlsrpt',
      'mx',
    ],
  );
  t.same(
    results.filter((entry) => entry.check === 'ptr').map((entry) => entry.subject),
    ['192.0.2.10', '192.0.2.11', '192.0.2.20'],
    'each egress address once',
  );
  t.equal(exitCodeOf(results), 0);
});

t.test('reverse DNS: missing, not forward-confirmed, not the HELO name', async (t) => {
  dns.setPtr('192.0.2.10');
  dns.setPtr('192.0.2.11', 'elsewhere.test');
  dns.setPtr('192.0.2.20', 'out1.mailroom.test');
  dns.add({ type: 'A', name: 'out1.mailroom.test', address: '192.0.2.20' });
  const results = await doctor();
  t.match(find(results, 'ptr', '192.0.2.10'), {
    status: 'fail',
    detail: /no PTR record: publish out1\.mailroom\.test/,
  });
  t.match(find(results, 'ptr', '192.0.2.11'), { status: 'fail', detail: /elsewhere\.test does not resolve back/ });
  t.match(find(results, 'ptr', '192.0.2.20'), { status: 'fail', detail: /not the HELO name mta\.mailroom\.test/ });
  t.equal(exitCodeOf(results), 1);
});

t.test('SPF that leaves out a pool address fails, naming it', async (t) => {
  replaceTxt(spf.fqdn, 'v=spf1 ip4:192.0.2.10 ~all');
  const result = find(await doctor(), 'spf');
  t.equal(result.status, 'fail');
  t.match(result.detail, /does not pass 192\.0\.2\.11 \(softfail\) of the us-east-1 pool/);
  t.notMatch(result.detail, /192\.0\.2\.10 \(/, 'the covered address is not named');
});

t.test('SPF over 10 DNS look-ups fails even when it covers the pool', async (t) => {
  const includes = Array.from({ length: 11 }, (_, i) => `include:spf${i}.provider.test`).join(' ');
  replaceTxt(spf.fqdn, `v=spf1 ip4:192.0.2.10 ip4:192.0.2.11 ${includes} ~all`);
  for (let i = 0; i < 11; i++)
    dns.add({ type: 'TXT', name: `spf${i}.provider.test`, value: 'v=spf1 ip4:203.0.113.1 -all' });
  const result = find(await doctor(), 'spf');
  t.match(result, { status: 'fail', detail: /needs 11 DNS look-ups, over the limit of 10/ });
  t.notMatch(result.detail, /does not pass/);
});

t.test('SPF through an include with a few look-ups is ok', async (t) => {
  replaceTxt(spf.fqdn, 'v=spf1 include:_spf.example.test mx -all');
  dns.add({ type: 'TXT', name: '_spf.example.test', value: 'v=spf1 ip4:192.0.2.0/24 -all' });
  t.match(find(await doctor(), 'spf'), {
    status: 'ok',
    detail: /passes all 2 us-east-1 pool addresses with 2 look-ups/,
  });
});

t.test('DKIM: a different key, or none, at the active selector fails', async (t) => {
  const other = generateDkimKey('rsa');
  replaceTxt(dkim.fqdn, dkimRecordValue('rsa', other.publicKey));
  t.match(find(await doctor(), 'dkim'), {
    status: 'fail',
    detail: /is not the active rsa key: publish "v=DKIM1; k=rsa; p=/,
  });
  replaceTxt(dkim.fqdn);
  t.match(find(await doctor(), 'dkim'), { status: 'fail', detail: /no DKIM record for the active key/ });
  // The same key split differently (whitespace in p=) is the same key.
  replaceTxt(dkim.fqdn, dkim.value.replace('p=', 'p= ').replace(/(.{100})/, '$1 '));
  t.match(find(await doctor(), 'dkim'), { status: 'ok' });
});

t.test('DMARC: p=none warns (exit 0), none at all fails (exit 1)', async (t) => {
  replaceTxt('_dmarc.example.test', 'v=DMARC1; p=none');
  let results = await doctor();
  t.match(find(results, 'dmarc'), { status: 'warn', detail: /p=none/ });
  t.same(
    notOk(results).map((entry) => entry.check),
    ['dmarc'],
  );
  t.equal(exitCodeOf(results), 0, 'warnings do not fail');
  replaceTxt('_dmarc.example.test');
  results = await doctor();
  t.match(find(results, 'dmarc'), { status: 'fail', detail: /no DMARC record at _dmarc\.example\.test/ });
  t.equal(exitCodeOf(results), 1);
});

t.test('receiving MX pointing elsewhere fails; beside another host warns', async (t) => {
  dns.remove((record) => record.type === 'MX' && record.name === 'example.test');
  dns.add({ type: 'MX', name: 'example.test', exchange: 'aspmx.l.google.test' });
  t.match(find(await doctor(), 'mx'), {
    status: 'fail',
    detail: /points at aspmx\.l\.google\.test \(10\), not at mx\.mailroom\.test/,
  });
  dns.add({ type: 'MX', name: 'example.test', exchange: 'mx.mailroom.test', priority: 5 });
  t.match(find(await doctor(), 'mx'), { status: 'warn', detail: /also aspmx\.l\.google\.test/ });
});

t.test('certificates: under 14 days warns, expired fails', async (t) => {
  let results = await doctor({ now: new Date(Date.now() + 80 * DAY) });
  t.match(find(results, 'inbound_certificate'), { status: 'warn', detail: /expires in \d+\.\d days/ });
  t.match(find(results, 'submission_certificate'), { status: 'warn' });
  // Moving this node's clock 80 days on also puts it 80 days off the MySQL server's clock, which
  // clock_skew rightly fails; the certificate warnings themselves fail nothing.
  const moved = app.runtime.db.dialect === 'mysql' ? ['clock_skew'] : [];
  t.same(
    results.filter((entry) => entry.status === 'fail').map((entry) => entry.check),
    moved,
    'warnings alone fail nothing',
  );
  results = await doctor({ now: new Date(Date.now() + 91 * DAY) });
  t.match(find(results, 'inbound_certificate'), { status: 'fail', detail: /expired on/ });
  t.match(find(results, 'submission_certificate'), { status: 'fail', detail: /expired on/ });
  t.equal(exitCodeOf(results), 1);
});

t.test(
  "clock skew against the MySQL server's clock: over 1 s warns, over 30 s fails",
  { skip: app.runtime.db.dialect === 'mysql' ? false : 'SQLite has no other clock to compare with' },
  async (t) => {
    t.match(find(await doctor(), 'clock_skew'), { status: 'ok', detail: /this clock is 0\.\d{3} s/ });
    t.match(find(await doctor({ now: new Date(Date.now() + 5_000) }), 'clock_skew'), {
      status: 'warn',
      detail: /is [4-6]\.\d{3} s ahead of the database server's.*NTP/,
    });
    const behind = await doctor({ now: new Date(Date.now() - 60_000) });
    t.match(find(behind, 'clock_skew'), { status: 'fail', detail: /is [5-6]\d\.\d{3} s behind/ });
    t.equal(exitCodeOf(behind), 1);
  },
);

t.test('DNSBL: an address listed on a zone fails, naming the zone and code', async (t) => {
  dns.add({ type: 'A', name: '11.2.0.192.bl2.test', address: '127.0.0.4' });
  const results = await doctor();
  t.match(find(results, 'dnsbl', '192.0.2.11'), { status: 'fail', detail: 'listed on bl2.test (127.0.0.4)' });
  t.match(find(results, 'dnsbl', '192.0.2.10'), { status: 'ok', detail: 'not listed on bl.test, bl2.test' });
  dns.add({ type: 'A', name: '10.2.0.192.bl.test', address: '127.255.255.254' });
  t.match(find(await doctor(), 'dnsbl', '192.0.2.10'), { status: 'warn', detail: /bl\.test refused the query/ });
});

t.test('the real command', async (t) => {
  const env = cliEnvFor(config, {
    MAILROOM_DNS_SERVERS: dns.address,
    MAILROOM_MASTER_KEY: MASTER_KEY,
    MAILROOM_SUBMISSION_PORT: String(submission.port),
    MAILROOM_SUBMISSION_TLS_PORT: String(submission.tlsPort),
  });
  const mailroom = (args: string[], extraEnv: Record<string, string> = {}) =>
    run(process.execPath, ['bin/mailroom.js', ...args], {
      env: { ...env, ...extraEnv },
    }).then(
      ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
  const zones = ['--dnsbl-zones', 'bl.test,bl2.test'];

  t.test('all ok: exit 0, JSON array of results', async (t) => {
    const { code, stdout } = await mailroom(['doctor', '--json', ...zones]);
    t.equal(code, 0);
    const results = JSON.parse(stdout) as CheckResult[];
    t.same(notOk(results), []);
    t.match(find(results, 'spf'), { subject: `example.test (${spf.fqdn})`, status: 'ok' });
    t.match(find(results, 'submission_starttls'), {
      status: 'ok',
      detail: /^STARTTLS offered; AUTH PLAIN LOGIN after it/,
    });
    t.match(find(results, 'submission_implicit_tls'), { status: 'ok' });
  });

  t.test('a warning only: exit 0; the lines are human-readable', async (t) => {
    replaceTxt('_dmarc.example.test', 'v=DMARC1; p=none');
    const { code, stdout } = await mailroom(['doctor', ...zones]);
    t.equal(code, 0);
    t.match(stdout, /^warn dmarc +example\.test: _dmarc\.example\.test has p=none/m);
    t.match(stdout, /^ok   ptr +192\.0\.2\.10: PTR out1\.mailroom\.test resolves back/m);
    t.match(stdout, /\d+ ok, 1 warnings, 0 failures\n$/);
  });

  t.test('a failure: exit 1', async (t) => {
    dns.setPtr('192.0.2.11', 'elsewhere.test');
    const { code, stdout } = await mailroom(['doctor', '--json', ...zones]);
    t.equal(code, 1);
    t.same(
      notOk(JSON.parse(stdout)).map((entry: CheckResult) => [entry.check, entry.subject, entry.status]),
      [['ptr', '192.0.2.11', 'fail']],
    );
  });

  t.test('without --dnsbl-zones the configured doctor.dnsblZones are asked', async (t) => {
    const { stdout } = await mailroom(['doctor', '--json'], { MAILROOM_DOCTOR_DNSBL_ZONES: 'bl2.test' });
    const dnsbl = (JSON.parse(stdout) as CheckResult[]).filter((entry) => entry.check === 'dnsbl');
    t.ok(dnsbl.length > 0, 'the egress addresses are looked up');
    t.ok(
      dnsbl.every((entry) => entry.detail.includes('bl2.test') && !entry.detail.includes('bl.test,')),
      'on the configured list only',
    );
    const none = await mailroom(['doctor', '--json', '--dnsbl-zones', '']);
    t.same(
      (JSON.parse(none.stdout) as CheckResult[]).filter((entry) => entry.check === 'dnsbl'),
      [],
      'an empty list asks none',
    );
  });

  t.test('a configuration error exits 2', async (t) => {
    const { code, stderr } = await mailroom(['doctor'], { MAILROOM_API_PORT: 'abc' });
    t.equal(code, 2);
    t.match(stderr, /api\.port/);
  });

  t.test('dns-zone prints the BIND snippet', async (t) => {
    const { code, stdout } = await mailroom(['dns-zone', '--domain', 'example.test']);
    t.equal(code, 0);
    t.match(stdout, `${dkim.fqdn}.\t3600\tIN\tTXT\t"v=DKIM1; k=rsa; p=`);
    t.match(stdout, `${spf.fqdn}.\t3600\tIN\tTXT\t"${spf.value}"`);
    t.match(stdout, `${spf.fqdn}.\t3600\tIN\tMX\t10 mta.mailroom.test.`);
    t.match(stdout, 'example.test.\t3600\tIN\tMX\t10 mx.mailroom.test.');
    t.match(stdout, /^; \(not required now\) links\.example\.test\.\t3600\tIN\tCNAME\ttrack\.mailroom\.localhost\.$/m);
    // Every TXT string is at most 255 characters, as BIND requires.
    for (const quoted of stdout.match(/"[^"]*"/g) ?? []) t.ok(quoted.length - 2 <= 255);
    const missing = await mailroom(['dns-zone', '--domain', 'nope.test']);
    t.equal(missing.code, 1);
    t.match(missing.stderr, /not_found/);
  });
});
