import dnsPacket from 'dns-packet';
import t from 'tap';
import { encodeUpdate } from '../../lib/dns/dns-update.js';
import { parseTsigSecret, signRequest, verifyResponse } from '../../lib/dns/tsig.js';
import { zoneFor } from '../../core/sending/domains/auto-configure/update-zones.js';
import { txtStrings } from '../../core/sending/domains/auto-configure/zone-changes.js';

/** The DNS UPDATE pieces without a server (BIND itself answers in test/api/domain-auto-configure.test.ts). */
const key = { name: 'mailroom.', algorithm: 'hmac-sha256' as const, secret: Buffer.alloc(32, 3) };

t.test('an UPDATE message reads back as one: opcode, zone, prerequisites, updates, TSIG last', async (t) => {
  const message = encodeUpdate(4242, {
    zone: 'Example.TEST',
    prerequisites: [{ rrsetAbsent: { name: '_dmarc.example.test', type: 'TXT' } }],
    updates: [
      // (TXT: dns-packet's decoder cannot read the empty RDATA of a class-ANY MX; BIND can.)
      { op: 'delete_rrset', name: 'send.example.test', type: 'TXT' },
      {
        op: 'add',
        record: { name: 'send.example.test', type: 'MX', ttl: 300, data: { preference: 10, exchange: 'mta.test' } },
      },
    ],
  });
  const { signed, mac } = signRequest(message, key, new Date('2026-11-26T00:00:00Z'));
  t.equal(mac.length, 32, 'HMAC-SHA256');
  const decoded = dnsPacket.decode(signed);
  t.equal(decoded.id, 4242);
  t.equal((decoded as { opcode?: string }).opcode, 'UPDATE');
  t.match(decoded.questions, [{ name: 'example.test', type: 'SOA', class: 'IN' }]);
  t.equal(decoded.answers?.length, 1, 'prerequisites travel as answers');
  t.match(decoded.authorities, [
    { name: 'send.example.test', type: 'TXT', class: 'ANY', ttl: 0 },
    { name: 'send.example.test', type: 'MX', class: 'IN', ttl: 300, data: { preference: 10, exchange: 'mta.test' } },
  ]);
  t.match(decoded.additionals, [{ name: 'mailroom', type: 'TSIG' }]);
  t.match(verifyResponse(message, mac, key), { ok: false, error: 'UNSIGNED' }, 'an unsigned answer is not trusted');
});

t.test('key files: the bare secret or tsig-keygen output; anything else is refused', async (t) => {
  const secret = Buffer.alloc(32, 9).toString('base64');
  t.same(parseTsigSecret(`${secret}\n`), Buffer.alloc(32, 9));
  t.same(parseTsigSecret(`key "m" {\n\talgorithm hmac-sha256;\n\tsecret "${secret}";\n};\n`), Buffer.alloc(32, 9));
  t.equal(parseTsigSecret('not a key!'), undefined);
  t.equal(parseTsigSecret(''), undefined);
});

t.test('a domain uses the longest configured zone it is in', async (t) => {
  const zone = (name: string) => ({
    zone: name,
    server: 'ns',
    port: 53,
    keyName: 'k',
    keyAlgorithm: 'hmac-sha256' as const,
    keySecretFile: 'f',
    ttl: 300,
  });
  const zones = [zone('example.com'), zone('mail.example.com')];
  t.equal(zoneFor(zones, 'a.mail.example.com')?.zone, 'mail.example.com');
  t.equal(zoneFor(zones, 'Example.COM')?.zone, 'example.com');
  t.equal(zoneFor(zones, 'badexample.com'), undefined, 'a suffix is not a parent zone');
});

t.test('TXT values longer than 255 bytes are split into strings', async (t) => {
  const value = 'p='.padEnd(600, 'A');
  t.same(
    txtStrings(value).map((s) => s.length),
    [255, 255, 90],
  );
  t.equal(txtStrings(value).join(''), value);
});
