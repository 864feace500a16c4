import { Resend } from 'resend';
import t from 'tap';
import { newId } from '../../lib/ids.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/** The `resend` SDK's domains.claims.* against the appliance, as an integration would call them. */
const dns = await TestDnsServer.start();
const app = await startTestApp({ env: { MAILROOM_DNS_SERVERS: dns.address } });
t.teardown(async () => {
  await app.close();
  await dns.close();
});
const owner = await app.createTeam('SDK owner', 'unlimited');
const claimer = await app.createTeam('SDK claimer', 'unlimited');
await markedVerifiedDomain(app, owner.teamId, 'sdk-claimed.test');
const resend = new Resend(claimer.token, { baseUrl: `${app.url}/api/v1` } as never);

t.test('domains.create answers resource_locked; claims.create, get, verify', async (t) => {
  const locked = await resend.domains.create({ name: 'sdk-claimed.test' });
  t.equal(locked.data, null);
  t.match(locked.error, { statusCode: 409, name: 'resource_locked' });

  const created = await resend.domains.claims.create({
    name: 'sdk-claimed.test',
    region: 'eu-west-1',
    openTracking: true,
  });
  t.equal(created.error, null);
  const claim = created.data!;
  t.match(claim, {
    object: 'domain_claim',
    id: String,
    name: 'sdk-claimed.test',
    status: 'pending',
    domain_id: String,
    region: 'eu-west-1',
    record: { type: 'TXT', name: 'sdk-claimed.test', value: /^mailroom-domain-verification=/, ttl: 'Auto' },
    blocked_reason: null,
    failure_reason: null,
    created_at: String,
    expires_at: String,
  });
  const placeholder = await resend.domains.get(claim.domain_id!);
  t.match(placeholder.data, { name: 'sdk-claimed.test', region: 'eu-west-1', open_tracking: true });

  const again = await resend.domains.claims.create({
    name: 'sdk-claimed.test',
    region: 'eu-west-1',
    openTracking: true,
  });
  t.equal(again.data?.id, claim.id, 'identical request: the same claim');

  const got = await resend.domains.claims.get(claim.domain_id!);
  t.same(got.data, claim);
  const verified = await resend.domains.claims.verify(claim.domain_id!);
  t.equal(verified.error, null);
  t.match(verified.data, { id: claim.id, status: 'pending' });

  const missing = await resend.domains.claims.get(newId());
  t.equal(missing.data, null);
  t.match(missing.error, { statusCode: 404, name: 'not_found' });
});
