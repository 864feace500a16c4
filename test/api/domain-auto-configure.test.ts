import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { BindServer, NAMED } from '../helpers/bind-server.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * Auto-configure against a real BIND 9 on loopback: the records land in its zone by DNS UPDATE
 * signed with TSIG, verification (pointed at the same server) sees them, and rotation and
 * deletion change the zone. Refusals come from BIND itself (REFUSED, NOTAUTH). Under CI named
 * must be installed (bind9); elsewhere the file is skipped without it.
 */
if (!NAMED && !process.env.CI) {
  t.plan(0, 'named is not installed (apt install bind9 bind9-dnsutils)');
} else {
  await run();
}

async function run() {
  const bind = await BindServer.start([
    { name: 'example.test', allowUpdate: true },
    { name: 'locked.test', allowUpdate: false },
    { name: 'badkey.test', allowUpdate: true },
  ]);
  t.teardown(() => bind.close());
  const wrongKeyFile = join(bind.dir, 'wrong.key');
  writeFileSync(wrongKeyFile, `${Buffer.alloc(32, 7).toString('base64')}\n`);
  const zone = (name: string, keySecretFile = bind.keyFile) => ({
    zone: name,
    server: '127.0.0.1',
    port: bind.port,
    keyName: bind.keyName,
    keySecretFile,
    ttl: 300,
  });
  const app = await startTestApp({
    env: { MAILROOM_DNS_SERVERS: bind.address },
    config: {
      mta: { hostname: 'mta.mailroom.test', regions: { 'us-east-1': { ips: ['192.0.2.10'] } } },
      inbound: { mxHost: 'mx.mailroom.test' },
      tracking: { host: 'track.mailroom.test' },
      dns: {
        updateZones: [zone('example.test'), zone('locked.test'), zone('badkey.test', wrongKeyFile)],
      },
    },
  });
  t.teardown(() => app.close());
  const team = await app.createTeam('Auto-configure', 'unlimited');
  const call = (method: string, path: string, body?: unknown) =>
    request(app.url, path, { method, token: team.token, body });
  const create = async (name: string, receiving = false) => {
    const res = await call('POST', '/domains', {
      name,
      region: 'us-east-1',
      ...(receiving ? { capabilities: { receiving: 'enabled' } } : {}),
    });
    if (res.status !== 201) throw new Error(`POST /domains ${name}: ${res.status} ${res.text}`);
    return res.body as { id: string };
  };
  type Out = { name: string; type: string; value: string; record: string; status: string; priority?: number };
  const fqdn = (record: Out, domain: string) => (record.name === '@' ? domain : `${record.name}.example.test`);

  t.test('publishes every record by DNS UPDATE, verifies, and marks the domain managed', async (t) => {
    const { id } = await create('mail.example.test', true);
    const res = await call('POST', `/domains/${id}/auto-configure`);
    t.equal(res.status, 200, JSON.stringify(res.body));
    t.equal(res.body.managed, true);
    t.equal(res.body.status, 'verified', 'verification ran against the updated zone');
    const records = res.body.records as Out[];
    t.ok(records.every((r) => r.status === 'verified'));
    for (const record of records) {
      const name = fqdn(record, 'mail.example.test');
      if (record.type === 'TXT') t.ok((await bind.txt(name)).includes(record.value), `${record.record} TXT at ${name}`);
      if (record.type === 'MX')
        t.same(await bind.mx(name), [{ exchange: record.value, priority: record.priority }], `MX at ${name}`);
      if (record.type === 'CNAME') t.same(await bind.cname(name), [record.value], `CNAME at ${name}`);
    }
    const dmarc = `v=DMARC1; p=none; rua=mailto:dmarc-reports+${id}@mx.mailroom.test`;
    t.same(await bind.txt('_dmarc.mail.example.test'), [dmarc], 'a DMARC policy where none was, its reports to us');
    t.same(
      await bind.txt('_smtp._tls.mail.example.test'),
      ['v=TLSRPTv1; rua=mailto:tlsrpt@mta.mailroom.test'],
      'a TLSRPT record where none was',
    );
    t.equal((await call('GET', `/domains/${id}`)).body.managed, true);
    const updates = await app.runtime.db.knex('events').where({ type: 'domain.updated' });
    const managedEvent = updates.map((e) => JSON.parse(e.data)).find((d) => d.id === id && d.managed === true);
    t.ok(managedEvent, 'the team hears of it: domain.updated with managed: true');
    const audited = await app.runtime.db.knex('audit_log_entries').where({ resource_id: id }).pluck('action');
    t.ok(audited.includes('domain.auto_configured'), 'the audit log records the auto-configure');
    t.ok(audited.includes('domain.verified'), 'and the verification it led to');

    // Again: RRsets are replaced, not doubled; the DMARC policy now there is left alone.
    const again = await call('POST', `/domains/${id}/auto-configure`);
    t.equal(again.status, 200);
    const spf = records.find((r) => r.record === 'SPF' && r.type === 'TXT')!;
    t.same(await bind.txt(fqdn(spf, 'mail.example.test')), [spf.value]);
    t.same(await bind.txt('_dmarc.mail.example.test'), [dmarc]);
  });

  t.test('DKIM rotation of a managed domain replaces the record in the zone', async (t) => {
    const { id } = await create('rotate.example.test');
    t.equal((await call('POST', `/domains/${id}/auto-configure`)).status, 200);
    const before = (await call('GET', `/domains/${id}`)).body.records as Out[];
    const oldDkim = before.find((r) => r.record === 'DKIM')!;
    const res = await call('POST', `/domains/${id}/dkim/rotate`, { algorithm: 'rsa' });
    t.equal(res.status, 200, JSON.stringify(res.body));
    const dkim = (res.body.records as Out[]).filter((r) => r.record === 'DKIM');
    t.equal(dkim.length, 1, 'the new key signs, the old one is retired');
    t.not(dkim[0]!.name, oldDkim.name);
    t.equal(dkim[0]!.status, 'verified');
    t.same(await bind.txt(`${dkim[0]!.name}.example.test`), [dkim[0]!.value], 'new selector published');
    t.same(await bind.txt(`${oldDkim.name}.example.test`), [], 'old selector removed');
  });

  t.test('deleting a managed domain removes its records from the zone', async (t) => {
    const { id } = await create('gone.example.test', true);
    const published = (await call('POST', `/domains/${id}/auto-configure`)).body.records as Out[];
    const res = await call('DELETE', `/domains/${id}`);
    t.equal(res.status, 200);
    for (const record of published) {
      const name = fqdn(record, 'gone.example.test');
      if (record.type === 'TXT') t.same(await bind.txt(name), [], `no TXT at ${name}`);
      if (record.type === 'MX') t.same(await bind.mx(name), [], `no MX at ${name}`);
      if (record.type === 'CNAME') t.same(await bind.cname(name), [], `no CNAME at ${name}`);
    }
    t.same(
      await bind.txt('_dmarc.gone.example.test'),
      [`v=DMARC1; p=none; rua=mailto:dmarc-reports+${id}@mx.mailroom.test`],
      'DMARC stays: it may be the team’s',
    );
  });

  t.test('a zone the server does not let us update: 422 with rcode REFUSED, not managed', async (t) => {
    const { id } = await create('mail.locked.test');
    const res = await call('POST', `/domains/${id}/auto-configure`);
    const body = errorShape(t, res, 422, 'validation_error');
    t.same(body.details, { rcode: 'REFUSED', zone: 'locked.test' });
    t.match(body.message, /allow-update/);
    t.equal((await call('GET', `/domains/${id}`)).body.managed, false);
    t.same(await bind.txt('_dmarc.mail.locked.test'), []);
  });

  t.test('a key the server does not accept: 422 with rcode NOTAUTH and the TSIG error', async (t) => {
    const { id } = await create('mail.badkey.test');
    const res = await call('POST', `/domains/${id}/auto-configure`);
    const body = errorShape(t, res, 422, 'validation_error');
    t.same(body.details, { rcode: 'NOTAUTH', zone: 'badkey.test', tsig_error: 'BADSIG' });
    t.equal((await call('GET', `/domains/${id}`)).body.managed, false);
  });
}
