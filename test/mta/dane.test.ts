import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import t from 'tap';
import type { TlsSessionResult } from '../../core/sending/tls-reports/tls-result.types.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';
import { TestCa } from '../helpers/test-ca.js';
import { TlsSmtpSink } from '../helpers/tls-smtp-sink.js';

/**
 * DANE (RFC 7672) on the way out, end to end: TLSA records from the test DNS server, which sets
 * the AD bit for the names the test marks as signed (standing in for a validating resolver),
 * and recipient servers offering STARTTLS with chosen certificates.
 */
const run = randomBytes(3).toString('hex');
const MATCH = `dane-ok-${run}.test`;
const ANCHOR = `dane-ta-${run}.test`;
const MISMATCH = `dane-bad-${run}.test`;
const UNSIGNED = `dane-unsigned-${run}.test`;
const PKIX = `dane-pkix-${run}.test`;
const ca = TestCa.create();
const leaf = ca.issue([`mx1.${MATCH}`, `mx1.${ANCHOR}`]);
const stranger = ca.issue(['stranger.test'], { selfSigned: true });
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest();
const spkiHash = (pem: string) =>
  sha256(new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' }) as Buffer);

// 127.0.0.40 presents the leaf and the CA (a chain, for DANE-TA); 127.0.0.41 a self-signed certificate.
const good = await TlsSmtpSink.start('127.0.0.40', 0, { key: leaf.key, cert: leaf.cert, ca: ca.caPem });
const other = await TlsSmtpSink.start('127.0.0.41', good.port, { key: stranger.key, cert: stranger.cert });
const results: TlsSessionResult[] = [];
const fx = await startMtaFixture({
  sinkHosts: [],
  port: good.port,
  dane: true,
  mta: { retrySchedule: [30] },
  tlsResults: { record: (result) => results.push(result) },
});
t.teardown(async () => {
  await fx.close();
  await good.close();
  await other.close();
});

function destination(domain: string, address: string, tlsa: { usage: number; hash: Buffer }, signed: boolean) {
  const mx = `mx1.${domain}`;
  fx.dns.add(
    { type: 'MX', name: domain, exchange: mx, priority: 10 },
    { type: 'A', name: mx, address },
    { type: 'TLSA', name: `_25._tcp.${mx}`, usage: tlsa.usage, selector: 1, matchingType: 1, data: tlsa.hash },
  );
  if (signed) fx.dns.signed.add(`_25._tcp.${mx}`);
}
destination(MATCH, '127.0.0.40', { usage: 3, hash: spkiHash(leaf.cert) }, true);
destination(ANCHOR, '127.0.0.40', { usage: 2, hash: spkiHash(ca.caPem) }, true);
destination(MISMATCH, '127.0.0.41', { usage: 3, hash: spkiHash(leaf.cert) }, true);
destination(UNSIGNED, '127.0.0.41', { usage: 3, hash: spkiHash(leaf.cert) }, false);
destination(PKIX, '127.0.0.41', { usage: 1, hash: spkiHash(leaf.cert) }, true);

const types = (events: Array<{ type: string }>) => events.map((e) => e.type);
const resultsFor = (domain: string) => results.filter((r) => r.policyDomain === domain);
const received = (sink: TlsSmtpSink, to: string) => sink.messages.filter((m) => m.to.includes(to));

t.test('an authenticated DANE-EE record and a matching certificate: delivered over TLS', async (t) => {
  const id = await fx.send({ to: [`alice@${MATCH}`] });
  await fx.waitForEvents(id, ['email.delivered']);
  t.same(
    received(good, `alice@${MATCH}`).map((m) => m.secure),
    [true],
  );
  const result = resultsFor(MATCH)[0];
  t.equal(result?.policyType, 'tlsa', 'reported under the TLSA policy');
  t.equal(result?.outcome, 'success');
  t.match(result?.policyString[0], /^3 1 1 [0-9a-f]{64}$/, 'with the record as text');
});

t.test('a DANE-TA record matching the CA in the presented chain: delivered', async (t) => {
  const id = await fx.send({ to: [`bob@${ANCHOR}`] });
  await fx.waitForEvents(id, ['email.delivered']);
  t.equal(received(good, `bob@${ANCHOR}`).length, 1);
  t.equal(resultsFor(ANCHOR)[0]?.outcome, 'success');
});

t.test('an authenticated record and a certificate that does not match: deferred, nothing sent', async (t) => {
  const id = await fx.send({ to: [`carol@${MISMATCH}`] });
  const events = await fx.waitForEvents(id, ['email.delivery_delayed']);
  t.notOk(types(events).includes('email.bounced'), 'not bounced');
  t.notOk(types(events).includes('email.delivered'));
  t.equal(received(other, `carol@${MISMATCH}`).length, 0, 'the message never went out');
  const failure = resultsFor(MISMATCH)[0];
  t.equal(failure?.policyType, 'tlsa');
  t.match(failure?.outcome, { failure: 'validation-failure' }, 'reported as a validation failure');
});

t.test('the same record without the AD bit is ignored: delivered opportunistically', async (t) => {
  const id = await fx.send({ to: [`dave@${UNSIGNED}`] });
  await fx.waitForEvents(id, ['email.delivered']);
  t.equal(received(other, `dave@${UNSIGNED}`).length, 1, 'delivered to the server with the other certificate');
  t.equal(resultsFor(UNSIGNED)[0]?.policyType, 'no-policy-found', 'no DANE policy applied');
});

t.test('only PKIX usages (unusable for SMTP): TLS still required, certificate not checked', async (t) => {
  const id = await fx.send({ to: [`erin@${PKIX}`] });
  await fx.waitForEvents(id, ['email.delivered']);
  t.same(
    received(other, `erin@${PKIX}`).map((m) => m.secure),
    [true],
  );
  t.equal(resultsFor(PKIX)[0]?.policyType, 'tlsa');
});
