import { createHash, X509Certificate } from 'node:crypto';
import t from 'tap';
import { matchTlsa, usableTlsa, type TlsaRecord } from '../../mta/delivery/tls-policy/tlsa-match.js';
import { TestCa } from '../helpers/test-ca.js';

/** RFC 7672 3.1: which TLSA records SMTP uses, and how a presented chain matches them. */
const ca = TestCa.create();
const leaf = ca.issue(['mx1.dane.test']);
const other = ca.issue(['mx1.dane.test'], { selfSigned: true });
const der = (pem: string) => new X509Certificate(pem).raw;
const spki = (pem: string) => new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest();
const sha512 = (data: Buffer) => createHash('sha512').update(data).digest();
const chain = [der(leaf.cert), der(ca.caPem)];
const record = (usage: number, selector: number, matchingType: number, data: Buffer): TlsaRecord => ({
  usage,
  selector,
  matchingType,
  data,
});

t.test('only DANE-TA(2) and DANE-EE(3) with known selectors and matching types are usable', async (t) => {
  const all = [
    record(0, 1, 1, Buffer.alloc(32)),
    record(1, 1, 1, Buffer.alloc(32)),
    record(2, 0, 1, Buffer.alloc(32)),
    record(3, 1, 1, Buffer.alloc(32)),
    record(3, 2, 1, Buffer.alloc(32)),
    record(3, 1, 3, Buffer.alloc(32)),
  ];
  t.same(
    usableTlsa(all).map((r) => r.usage),
    [2, 3],
    'PKIX-TA/PKIX-EE and unknown selector or matching type are dropped',
  );
});

t.test('DANE-EE matches the leaf by certificate or public key, with each matching type', async (t) => {
  for (const [what, r] of [
    ['3 0 0 (full certificate)', record(3, 0, 0, der(leaf.cert))],
    ['3 1 1 (SHA-256 of the key)', record(3, 1, 1, sha256(spki(leaf.cert)))],
    ['3 1 2 (SHA-512 of the key)', record(3, 1, 2, sha512(spki(leaf.cert)))],
    ['3 0 1 (SHA-256 of the certificate)', record(3, 0, 1, sha256(der(leaf.cert)))],
  ] as const)
    t.ok(matchTlsa([r], chain, 'mx1.dane.test').ok, what);
  t.ok(matchTlsa([record(3, 1, 1, sha256(spki(leaf.cert)))], chain, 'other.name.test').ok, 'DANE-EE ignores the name');
  const wrong = matchTlsa([record(3, 1, 1, sha256(spki(other.cert)))], chain, 'mx1.dane.test');
  t.notOk(wrong.ok, "another certificate's key does not match");
});

t.test('DANE-TA matches an issuer in the chain; the leaf must then name the MX', async (t) => {
  const ta = record(2, 1, 1, sha256(spki(ca.caPem)));
  t.ok(matchTlsa([ta], chain, 'mx1.dane.test').ok, 'the CA in the chain matches, the leaf names the MX');
  const misnamed = matchTlsa([ta], chain, 'mx2.dane.test');
  t.notOk(misnamed.ok, 'a leaf for another name fails');
  t.notOk(matchTlsa([ta], [der(leaf.cert)], 'mx1.dane.test').ok, 'the anchor must be presented in the chain');
  t.notOk(
    matchTlsa([ta], [der(other.cert), der(ca.caPem)], 'mx1.dane.test').ok,
    'a leaf the anchor did not sign fails',
  );
});
