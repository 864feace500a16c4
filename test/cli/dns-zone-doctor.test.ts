import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { runDoctor } from '../../core/platform/doctor/doctor.js';
import type { CheckResult } from '../../core/platform/doctor/doctor.types.js';
import { createPtrLookup } from '../../core/platform/doctor/reverse-names.js';
import { DEFAULT_DMARC } from '../../core/sending/domains/auto-configure/zone-changes.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { startTestApp } from '../helpers/test-app.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';
import { cliEnvFor } from '../helpers/spawn-mailroom.js';

/**
 * Issue 32: `mailroom dns-zone` and `mailroom doctor` agree. What dns-zone prints, pasted into
 * the zone as it is, leaves doctor nothing to fail for the domain: DMARC is a live record (the
 * p=none starting policy DNS auto-configure publishes too), not a comment doctor then fails on.
 */
const run = promisify(execFile);
const MASTER_KEY = 'dns-zone-doctor-master-key'.padEnd(40, 'k');
const dns = await TestDnsServer.start();
t.teardown(() => dns.close());
const app = await startTestApp({
  env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_MASTER_KEY: MASTER_KEY },
  config: { mta: { hostname: 'mta.mailroom.test' }, inbound: { mxHost: 'mx.mailroom.test' } },
});
t.teardown(() => app.close());
const config = app.runtime.config;
const { token } = await app.createTeam();
dns.add({ type: 'MX', name: 'example.test', exchange: 'mx.mailroom.test' });
await addVerifiedDomain(app, dns, token, 'example.test', { capabilities: { receiving: 'enabled' } });

const env = cliEnvFor(config, { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_MASTER_KEY: MASTER_KEY });

/** The live (uncommented) lines of a BIND snippet, into the test DNS server. */
function publish(snippet: string): string[] {
  const live = snippet.split('\n').filter((line) => line.trim() !== '' && !line.startsWith(';'));
  dns.clear();
  dns.add({ type: 'SOA', name: 'example.test' });
  for (const line of live) {
    const [owner, , , type, ...rest] = line.split('\t');
    const name = owner!.replace(/\.$/, '');
    const data = rest.join('\t');
    if (type === 'TXT')
      dns.add({ type, name, value: [...data.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]).join('') });
    else if (type === 'MX') {
      const [priority, exchange] = data.split(' ');
      dns.add({ type, name, exchange: exchange!.replace(/\.$/, ''), priority: Number(priority) });
    } else if (type === 'CNAME') dns.add({ type, name, value: data.replace(/\.$/, '') });
  }
  return live;
}

t.test('the DMARC record dns-zone prints is live, the one auto-configure publishes', async (t) => {
  const { stdout } = await run(process.execPath, ['bin/mailroom.js', 'dns-zone', '--domain', 'example.test'], { env });
  t.match(
    stdout,
    new RegExp(
      `\\n_dmarc\\.example\\.test\\.\\t3600\\tIN\\tTXT\\t"${DEFAULT_DMARC}; rua=mailto:dmarc-reports\\+[0-9a-f-]{36}@${config.inbound.mxHost.replace(/\./g, '\\.')}"\\n`,
    ),
    'a record, not a comment, naming the report address',
  );
  t.notMatch(stdout, /^;.*IN\tTXT\t"v=DMARC1/m, 'no commented-out DMARC left');
  t.match(stdout, /^; DMARC: .*Leave this line out if _dmarc\.example\.test already has a policy/m);

  publish(stdout);
  const results = await runDoctor({
    config,
    lookup: app.runtime.lookup,
    ptr: createPtrLookup({ servers: config.dns.servers, timeoutMs: config.dns.timeoutMs }),
    db: app.runtime.db,
    now: () => new Date(),
    dnsblZones: [],
  });
  const forDomain = results.filter((entry) => ['spf', 'dkim', 'dmarc', 'mx'].includes(entry.check));
  t.same(
    forDomain.map((entry) => entry.check),
    ['spf', 'dkim', 'dmarc', 'mx'],
    'every DNS check of the domain ran',
  );
  t.same(
    forDomain.filter((entry: CheckResult) => entry.status === 'fail'),
    [],
    'doctor fails nothing dns-zone told the operator to publish',
  );
  t.match(
    forDomain.find((entry) => entry.check === 'dmarc'),
    { status: 'warn', detail: /p=none/ },
    'p=none is a warning: a policy to tighten later',
  );
});

t.test("doctor's missing-DMARC failure names the command that prints one", async (t) => {
  dns.remove((record) => record.type === 'TXT' && record.name === '_dmarc.example.test');
  const results = await runDoctor({
    config,
    lookup: app.runtime.lookup,
    ptr: createPtrLookup({ servers: config.dns.servers, timeoutMs: config.dns.timeoutMs }),
    db: app.runtime.db,
    now: () => new Date(),
    dnsblZones: [],
  });
  t.match(
    results.find((entry) => entry.check === 'dmarc'),
    {
      status: 'fail',
      detail: /publish at least "v=DMARC1; p=none" \(mailroom dns-zone --domain example\.test prints it\)/,
    },
  );
});

t.test('dns-zone prints a TLSRPT record (RFC 8460); doctor passes it live and warns without it', async (t) => {
  const { stdout } = await run(process.execPath, ['bin/mailroom.js', 'dns-zone', '--domain', 'example.test'], { env });
  t.match(stdout, '\n_smtp._tls.example.test.\t3600\tIN\tTXT\t"v=TLSRPTv1; rua=mailto:tlsrpt@mta.mailroom.test"\n');
  publish(stdout);
  const tlsrpt = async () =>
    (
      await runDoctor({
        config,
        lookup: app.runtime.lookup,
        ptr: createPtrLookup({ servers: config.dns.servers, timeoutMs: config.dns.timeoutMs }),
        db: app.runtime.db,
        now: () => new Date(),
        dnsblZones: [],
      })
    ).find((entry) => entry.check === 'tlsrpt');
  t.match(await tlsrpt(), { status: 'ok', detail: 'reports go to mailto:tlsrpt@mta.mailroom.test' });
  dns.remove((record) => record.type === 'TXT' && record.name === '_smtp._tls.example.test');
  t.match(await tlsrpt(), {
    status: 'warn',
    detail:
      /^no TLSRPT record at _smtp\._tls\.example\.test, .*publish "v=TLSRPTv1; rua=mailto:tlsrpt@mta\.mailroom\.test"/,
  });
  dns.add({ type: 'TXT', name: '_smtp._tls.example.test', value: 'v=TLSRPTv1; rua=ftp://example.test/' });
  t.match(await tlsrpt(), { status: 'fail', detail: /neither a mailto/ });
});
