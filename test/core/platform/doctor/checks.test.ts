import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { checkDmarc } from '../../../../core/platform/doctor/dns-checks.js';
import { checkCertificate, checkMasterKey } from '../../../../core/platform/doctor/local-checks.js';
import type { Domain } from '../../../../core/sending/domains/domain.types.js';
import { configSchema } from '../../../../lib/config/config.schema.js';
import type { DnsLookup, LookupResult } from '../../../../lib/dns/dns-resolver.js';
import { writeSelfSignedCertificate } from '../../../helpers/self-signed-certificate.js';

const dir = mkdtempSync(join(tmpdir(), 'mailroom-doctor-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** TXT answers from a table; every other look-up finds nothing. */
function txtTable(table: Record<string, string[]>): DnsLookup {
  const none = async (): Promise<LookupResult<never>> => ({ kind: 'none' });
  return {
    txt: async (name) => (table[name] ? { kind: 'found', values: table[name]! } : { kind: 'none' }),
    mx: none,
    cname: none,
    addresses: none,
    soa: none,
  };
}
const domain = { name: 'mail.example.test', zone: 'example.test' } as Domain;

t.test('DMARC: the zone policy applies to a subdomain, sp= first', async (t) => {
  t.match(await checkDmarc(txtTable({ '_dmarc.example.test': ['v=DMARC1; p=reject; sp=none'] }), domain), {
    status: 'warn',
    detail: /_dmarc\.example\.test \(inherited from the zone\) has p=none/,
  });
  t.match(await checkDmarc(txtTable({ '_dmarc.example.test': ['v=DMARC1; p=quarantine'] }), domain), {
    status: 'ok',
    detail: /p=quarantine/,
  });
  t.match(
    await checkDmarc(
      txtTable({ '_dmarc.mail.example.test': ['v=DMARC1; p=reject'], '_dmarc.example.test': ['v=DMARC1; p=none'] }),
      domain,
    ),
    { status: 'ok', detail: '_dmarc.mail.example.test has p=reject' },
  );
  t.match(
    await checkDmarc(txtTable({ '_dmarc.mail.example.test': ['v=DMARC1; p=reject', 'v=DMARC1; p=none'] }), domain),
    {
      status: 'fail',
      detail: /2 DMARC records/,
    },
  );
  t.match(await checkDmarc(txtTable({ '_dmarc.mail.example.test': ['v=DMARC1; rua=mailto:x@example.test'] }), domain), {
    status: 'fail',
    detail: /no valid policy/,
  });
  t.match(await checkDmarc(txtTable({}), domain), {
    status: 'fail',
    detail: /no DMARC record at _dmarc\.mail\.example\.test or _dmarc\.example\.test/,
  });
});

t.test('master key: configured ok, missing in production fails, development key warns', async (t) => {
  const base = { dataDir: dir };
  t.match(checkMasterKey(configSchema.parse({ ...base, masterKey: 'k'.repeat(32) })), { status: 'ok' });
  t.match(checkMasterKey(configSchema.parse({ ...base, env: 'production' })), { status: 'fail' });
  t.match(checkMasterKey(configSchema.parse({ ...base, env: 'development' })), {
    status: 'warn',
    detail: /will be generated/,
  });
  writeFileSync(join(dir, 'master.key'), 'x'.repeat(44));
  t.match(checkMasterKey(configSchema.parse({ ...base, env: 'development' })), {
    status: 'warn',
    detail: /generated development key/,
  });
});

t.test('certificates: none configured warns; a key that is not its own, or no file, fails', async (t) => {
  const a = writeSelfSignedCertificate(mkdtempSync(join(dir, 'a-')), 'mx.example.test', 'DNS:mx.example.test');
  const b = writeSelfSignedCertificate(mkdtempSync(join(dir, 'b-')), 'other.test');
  // After the certificates exist, and a second on: their notBefore is the second openssl ran in,
  // so a "now" read before it could fall before it (seen in CI).
  const now = new Date(Date.now() + 1000);
  t.match(checkCertificate('inbound', {}, now), { status: 'warn', detail: /no STARTTLS/ });
  t.match(checkCertificate('inbound', { certFile: a.certFile, keyFile: b.keyFile }, now, 'mx.example.test'), {
    status: 'fail',
    detail: /is not the key of this certificate/,
  });
  t.match(checkCertificate('submission', { certFile: join(dir, 'missing.pem'), keyFile: a.keyFile }, now), {
    status: 'fail',
    detail: /cannot read the certificate/,
  });
  // The one-day certificate of the helper: valid, but due for renewal; and it must name the MX host.
  t.match(checkCertificate('inbound', a, now, 'mx.example.test'), { status: 'warn', detail: /^expires in 1\.0 days/ });
  t.match(checkCertificate('inbound', a, now, 'mx.other.test'), {
    status: 'warn',
    detail: /does not name mx\.other\.test/,
  });
});
