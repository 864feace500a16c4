import { randomBytes } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import type { TlsSessionResult } from '../../core/sending/tls-reports/tls-result.types.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';
import { TestCa } from '../helpers/test-ca.js';
import { TlsSmtpSink } from '../helpers/tls-smtp-sink.js';

/**
 * MTA-STS (RFC 8461) on the way out, end to end: policies served over HTTPS on loopback by a
 * certificate from a test CA the MTA trusts through mta.tlsCaFile, `_mta-sts` TXT records and
 * MX hosts in the test DNS, and recipient servers offering STARTTLS with chosen certificates.
 */
const run = randomBytes(3).toString('hex'); // fresh names: the shared store may keep policies between runs
const STS = `sts-${run}.test`;
const OUTSIDE = `stsout-${run}.test`;
const TESTING = `ststest-${run}.test`;
const BADCERT = `stsbad-${run}.test`;
const MISNAMED = `stsname-${run}.test`;
const ca = TestCa.create();

const policies = new Map<string, string>();
const fetches = new Map<string, number>();
const policyCert = ca.issue([STS, OUTSIDE, TESTING, BADCERT, MISNAMED].map((d) => `mta-sts.${d}`));
const policyServer = createServer({ key: policyCert.key, cert: policyCert.cert }, (req, res) => {
  const domain = String(req.headers.host ?? '')
    .replace(/:\d+$/, '')
    .replace(/^mta-sts\./, '');
  fetches.set(domain, (fetches.get(domain) ?? 0) + 1);
  const policy = policies.get(domain);
  if (req.url !== '/.well-known/mta-sts.txt' || !policy) return void res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/plain' }).end(policy);
});
await new Promise<void>((resolve) => policyServer.listen(0, '127.0.0.30', () => resolve()));
const policyPort = (policyServer.address() as AddressInfo).port;

// 127.0.0.20: a certificate for the MX names, from the trusted CA; 127.0.0.21: a self-signed one.
const trusted = ca.issue([`mx1.${STS}`, `mx2.${STS}`]);
const good = await TlsSmtpSink.start('127.0.0.20', 0, { key: trusted.key, cert: trusted.cert });
const selfSigned = ca.issue(['other.test'], { selfSigned: true });
const bad = await TlsSmtpSink.start('127.0.0.21', good.port, { key: selfSigned.key, cert: selfSigned.cert });

const results: TlsSessionResult[] = [];
const fx = await startMtaFixture({
  sinkHosts: [],
  port: good.port,
  mta: { tlsCaFile: ca.caFile, dnsCacheMs: 0, retrySchedule: [30], mtaSts: { port: policyPort } },
  tlsResults: { record: (result) => results.push(result) },
});
t.teardown(async () => {
  await fx.close();
  await good.close();
  await bad.close();
  await new Promise((resolve) => policyServer.close(resolve));
});

const policy = (mode: string, ...mx: string[]) =>
  ['version: STSv1', `mode: ${mode}`, ...mx.map((m) => `mx: ${m}`), 'max_age: 86400', ''].join('\r\n');
function publish(domain: string, id: string, text: string, mx: Array<[string, string, number]>): void {
  policies.set(domain, text);
  fx.dns.add(
    { type: 'TXT', name: `_mta-sts.${domain}`, value: `v=STSv1; id=${id};` },
    { type: 'A', name: `mta-sts.${domain}`, address: '127.0.0.30' },
    ...mx.flatMap(([exchange, address, priority]) => [
      { type: 'MX' as const, name: domain, exchange, priority },
      { type: 'A' as const, name: exchange, address },
    ]),
  );
}
const types = (events: Array<{ type: string }>) => events.map((e) => e.type);
const resultsFor = (domain: string) => results.filter((r) => r.policyDomain === domain);

publish(STS, 'one', policy('enforce', `mx1.${STS}`, `mx2.${STS}`), [
  [`mx0.elsewhere-${run}.test`, '127.0.0.21', 10],
  [`mx1.${STS}`, '127.0.0.20', 20],
]);
publish(OUTSIDE, 'one', policy('enforce', `*.allowed-${run}.test`), [[`mx.${OUTSIDE}`, '127.0.0.20', 10]]);
publish(TESTING, 'one', policy('testing', `mx1.${TESTING}`), [[`mx.other-${run}.test`, '127.0.0.21', 10]]);
publish(BADCERT, 'one', policy('enforce', `mx.${BADCERT}`), [[`mx.${BADCERT}`, '127.0.0.21', 10]]);
// A certificate from the trusted CA, but for other names.
publish(MISNAMED, 'one', policy('enforce', `mx.${MISNAMED}`), [[`mx.${MISNAMED}`, '127.0.0.20', 10]]);

t.test('enforce: the MX outside the policy is skipped, the one inside gets the mail over verified TLS', async (t) => {
  const badConnections = bad.connections;
  const id = await fx.send({ to: [`alice@${STS}`] });
  const events = await fx.waitForEvents(id, ['email.delivered']);
  t.notOk(types(events).includes('email.bounced'));
  t.same(
    good.messages.filter((m) => m.to.includes(`alice@${STS}`)).map((m) => m.secure),
    [true],
    'delivered once, over TLS, to the MX the policy names',
  );
  t.equal(bad.connections, badConnections, 'the preferred MX outside the policy was never connected to');
  const recorded = resultsFor(STS);
  t.ok(
    recorded.some((r) => r.outcome !== 'success' && r.outcome.failure === 'validation-failure'),
    'the skipped MX is reported',
  );
  const success = recorded.find((r) => r.outcome === 'success');
  t.ok(success, 'the delivering connection is reported as a success');
  t.equal(success!.policyType, 'sts');
  t.equal(success!.receivingMxHostname, `mx1.${STS}`);
  t.ok(success!.policyString.includes('mode: enforce'), 'with the policy as published');
  t.equal(fetches.get(STS), 1, 'the policy was fetched once');
});

t.test('the policy is cached, and fetched again when the TXT id changes', async (t) => {
  const second = await fx.send({ to: [`bob@${STS}`] });
  await fx.waitForEvents(second, ['email.delivered']);
  t.equal(fetches.get(STS), 1, 'a second send uses the cached policy');

  // A new policy moves the mail to mx2 (same server, its certificate names mx2 too).
  fx.dns.remove((r) => r.name === `_mta-sts.${STS}` || (r.type === 'MX' && r.name === STS));
  publish(STS, 'two', policy('enforce', `mx2.${STS}`), [[`mx2.${STS}`, '127.0.0.20', 10]]);
  const third = await fx.send({ to: [`carol@${STS}`] });
  await fx.waitForEvents(third, ['email.delivered']);
  t.equal(fetches.get(STS), 2, 'the new id made the MTA fetch the policy again');
  t.ok(
    resultsFor(STS).some((r) => r.outcome === 'success' && r.receivingMxHostname === `mx2.${STS}`),
    'and the new policy applied',
  );

  // A refresh that fails keeps the policy in force (RFC 8461 5.1).
  fx.dns.remove((r) => r.name === `_mta-sts.${STS}`);
  fx.dns.add({ type: 'TXT', name: `_mta-sts.${STS}`, value: 'v=STSv1; id=three;' });
  policies.delete(STS);
  const fourth = await fx.send({ to: [`dave@${STS}`] });
  await fx.waitForEvents(fourth, ['email.delivered']);
  t.equal(fetches.get(STS), 3, 'the refresh was tried');
  t.ok(
    good.messages.some((m) => m.to.includes(`dave@${STS}`) && m.secure),
    'and the cached policy still delivered',
  );
});

t.test('enforce with no MX inside the policy: deferred, never bounced, nothing sent', async (t) => {
  const id = await fx.send({ to: [`erin@${OUTSIDE}`] });
  const events = await fx.waitForEvents(id, ['email.delivery_delayed']);
  t.notOk(types(events).includes('email.bounced'), 'not bounced');
  t.notOk(types(events).includes('email.delivered'));
  t.notOk(
    good.messages.some((m) => m.to.includes(`erin@${OUTSIDE}`)),
    'the MX outside the policy got nothing',
  );
  const [delivery] = await fx.app.runtime.services.deliveries.repository.ofEmail(id);
  const attempts = await fx.app.runtime.services.deliveries.repository.attemptsOf(delivery!.id);
  t.match(JSON.stringify(attempts[0]), /TLS policy: validation-failure/, 'the attempt says why');
});

t.test('enforce with an untrusted certificate: deferred, reported', async (t) => {
  const id = await fx.send({ to: [`frank@${BADCERT}`] });
  const events = await fx.waitForEvents(id, ['email.delivery_delayed']);
  t.notOk(types(events).includes('email.bounced'));
  t.notOk(
    bad.messages.some((m) => m.to.includes(`frank@${BADCERT}`)),
    'no message went to it',
  );
  t.ok(
    resultsFor(BADCERT).some((r) => r.outcome !== 'success' && r.outcome.failure === 'certificate-not-trusted'),
    'the certificate failure is reported',
  );
});

t.test('enforce with a trusted certificate for another name: deferred, reported', async (t) => {
  const id = await fx.send({ to: [`heidi@${MISNAMED}`] });
  const events = await fx.waitForEvents(id, ['email.delivery_delayed']);
  t.notOk(types(events).includes('email.bounced'));
  t.notOk(
    good.messages.some((m) => m.to.includes(`heidi@${MISNAMED}`)),
    'no message went to it',
  );
  t.ok(
    resultsFor(MISNAMED).some((r) => r.outcome !== 'success' && r.outcome.failure === 'certificate-host-mismatch'),
    'reported as a host mismatch',
  );
});

t.test('testing: delivered anyway, and the failure is reported', async (t) => {
  const id = await fx.send({ to: [`grace@${TESTING}`] });
  await fx.waitForEvents(id, ['email.delivered']);
  t.ok(
    bad.messages.some((m) => m.to.includes(`grace@${TESTING}`)),
    'the MX outside the policy got the message',
  );
  const failure = resultsFor(TESTING).find((r) => r.outcome !== 'success');
  t.ok(failure, 'a failure is recorded for the report');
  t.equal(failure!.policyType, 'sts');
  t.equal(failure!.receivingMxHostname, `mx.other-${run}.test`);
});
