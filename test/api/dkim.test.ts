import { Resolver } from 'node:dns/promises';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import t from 'tap';
import { request } from '../helpers/http.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * A key generated here signs a message that mailauth verifies against the TXT record the test
 * DNS server publishes, for RSA and Ed25519, and across a rotation.
 */
const dns = await TestDnsServer.start();
const app = await startTestApp({ env: { MAILROOM_DNS_SERVERS: dns.address } });
t.teardown(async () => {
  await app.close();
  await dns.close();
});
const team = await app.createTeam('DKIM', 'unlimited');

const resolver = new Resolver();
resolver.setServers([dns.address]);
const mailauthResolver = (name: string, type: string) => resolver.resolve(name, type as 'TXT');

type RecordOut = { record: string; name: string; type: string; value: string; status: string };

function publishDkim(records: RecordOut[], zone: string) {
  for (const r of records.filter((r) => r.record === 'DKIM'))
    dns.add({ type: 'TXT', name: `${r.name}.${zone}`, value: r.value });
}

async function signAndVerify(domainId: string, domainName: string) {
  const keys = await app.runtime.services.domains.signingKeys(domainId);
  const message = Buffer.from(
    [
      `From: Sender <hello@${domainName}>`,
      'To: someone@example.net',
      'Subject: DKIM test',
      `Message-ID: <${Date.now()}@${domainName}>`,
      'Date: Sun, 22 Nov 2026 12:00:00 +0000',
      '',
      'Hello, signed world.',
      '',
    ].join('\r\n'),
  );
  const signed = await dkimSign(message, {
    canonicalization: 'relaxed/relaxed',
    signatureData: keys.map((key) => ({
      signingDomain: domainName,
      selector: key.selector,
      privateKey: key.privateKeyPem,
      algorithm: key.algorithm === 'ed25519' ? 'ed25519-sha256' : 'rsa-sha256',
    })),
  } as never);
  t.same(signed.errors, [], 'signed without errors');
  const verified = await dkimVerify(Buffer.concat([Buffer.from(signed.signatures), message]), {
    resolver: mailauthResolver,
  });
  return {
    keys,
    results: verified.results as unknown as Array<{
      status: { result: string };
      signingDomain: string;
      selector: string;
      algo: string;
    }>,
  };
}

t.test('RSA and Ed25519 keys sign mail that mailauth verifies against the published records', async (t) => {
  dns.add({ type: 'SOA', name: 'signed.test' });
  const created = (
    await request(app.url, '/domains', {
      method: 'POST',
      token: team.token,
      body: { name: 'signed.test', dkim_ed25519: true },
    })
  ).body;
  const dkim = created.records.filter((r: RecordOut) => r.record === 'DKIM');
  t.equal(dkim.length, 2, 'both keys are published');
  t.match(dkim[1].value, /^v=DKIM1; k=ed25519; p=[A-Za-z0-9+/]{43}=$/);
  publishDkim(created.records, 'signed.test');
  const { keys, results } = await signAndVerify(created.id, 'signed.test');
  t.equal(keys.length, 2);
  t.equal(results.length, 2);
  for (const result of results) t.equal(result.status.result, 'pass', `${result.algo} ${result.selector}: pass`);
  t.same(results.map((r) => r.algo).sort(), ['ed25519-sha256', 'rsa-sha256']);
});

t.test('without the published record the signature does not verify', async (t) => {
  dns.clear();
  dns.add({ type: 'SOA', name: 'unpublished.test' });
  const created = (
    await request(app.url, '/domains', { method: 'POST', token: team.token, body: { name: 'unpublished.test' } })
  ).body;
  const { results } = await signAndVerify(created.id, 'unpublished.test');
  t.not(results[0]!.status.result, 'pass');
});

t.test('rotation publishes the new selector first and switches signing once it verifies', async (t) => {
  dns.clear();
  dns.add({ type: 'SOA', name: 'rotate.test' });
  const created = (
    await request(app.url, '/domains', { method: 'POST', token: team.token, body: { name: 'rotate.test' } })
  ).body;
  publishDkim(created.records, 'rotate.test');
  const oldSelector = (await app.runtime.services.domains.signingKeys(created.id))[0]!.selector;

  const rotated = await request(app.url, `/domains/${created.id}/dkim/rotate`, { method: 'POST', token: team.token });
  t.equal(rotated.status, 200);
  const dkim = rotated.body.records.filter((r: RecordOut) => r.record === 'DKIM');
  t.equal(dkim.length, 2, 'old and new key both listed');
  t.equal(
    (await app.runtime.services.domains.signingKeys(created.id))[0]!.selector,
    oldSelector,
    'still signing with the old key',
  );
  t.equal(
    (await request(app.url, `/domains/${created.id}/dkim/rotate`, { method: 'POST', token: team.token })).body.name,
    'resource_locked',
    'one rotation at a time',
  );

  await request(app.url, `/domains/${created.id}/verify`, { method: 'POST', token: team.token });
  t.equal(
    (await app.runtime.services.domains.signingKeys(created.id))[0]!.selector,
    oldSelector,
    'new record not visible yet: no switch',
  );

  publishDkim(dkim, 'rotate.test');
  await request(app.url, `/domains/${created.id}/verify`, { method: 'POST', token: team.token });
  const keys = await app.runtime.services.domains.signingKeys(created.id);
  t.equal(keys.length, 1);
  t.not(keys[0]!.selector, oldSelector, 'the new key signs');
  const after = (await request(app.url, `/domains/${created.id}`, { token: team.token })).body;
  t.same(
    after.records.filter((r: RecordOut) => r.record === 'DKIM').map((r: RecordOut) => r.name),
    [`${keys[0]!.selector}._domainkey`],
    'the retired key is no longer listed',
  );
  const { results } = await signAndVerify(created.id, 'rotate.test');
  // mailauth's whole status on failure (it says why: body hash, signature, key record).
  t.equal(results[0]!.status.result, 'pass', `verified with the new key: ${JSON.stringify(results[0]!.status)}`);
});
