import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';

// A long TTL: anything refused below is refused because the change reached the cache, not
// because an entry expired.
const dns = await TestDnsServer.start();
const app = await startTestApp({ env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_API_LOOKUP_CACHE_MS: '60000' } });
t.teardown(async () => {
  await app.close();
  await dns.close();
});
const services = app.runtime.services;
const send = (token: string, from: string) =>
  request(app.url, '/emails', {
    method: 'POST',
    token,
    body: { from, to: 'someone@example.net', subject: 's', text: 't' },
  });

t.test('a revoked key is refused at the next request, though it was cached', async (t) => {
  const team = await app.createTeam('Revoke');
  t.equal((await request(app.url, '/team', { token: team.token })).status, 200);
  t.equal((await request(app.url, '/team', { token: team.token })).status, 200, 'served again (cached)');
  t.equal((await request(app.url, `/api-keys/${team.keyId}`, { method: 'DELETE', token: team.token })).status, 200);
  errorShape(t, await request(app.url, '/team', { token: team.token }), 403, 'restricted_api_key');
});

t.test('a suspended key, or a suspended team, is refused at the next request', async (t) => {
  const team = await app.createTeam('Suspend');
  t.equal((await request(app.url, '/team', { token: team.token })).status, 200);
  await services.apiKeys.setSuspended(team.teamId, team.keyId, true);
  errorShape(t, await request(app.url, '/team', { token: team.token }), 403, 'suspended_api_key');
  await services.apiKeys.setSuspended(team.teamId, team.keyId, false);
  t.equal((await request(app.url, '/team', { token: team.token })).status, 200, 'and works again at the next one');
  await services.teams.setRiskState(team.teamId, 'suspended');
  errorShape(t, await request(app.url, '/team', { token: team.token }), 403, 'suspended_api_key');
});

t.test('any write to the table from this process counts, also one outside the services', async (t) => {
  const team = await app.createTeam('Direct');
  t.equal((await request(app.url, '/team', { token: team.token })).status, 200);
  await app.runtime.db.knex('api_keys').where({ id: team.keyId }).update({ status: 'suspended' });
  errorShape(t, await request(app.url, '/team', { token: team.token }), 403, 'suspended_api_key');
});

t.test('a plan or team change is seen at the next request (GET /team shows it)', async (t) => {
  const team = await app.createTeam('Plan');
  t.equal((await request(app.url, '/team', { token: team.token })).body.plan?.code ?? 'free', 'free');
  await services.teams.setPlan(team.teamId, 'pro');
  t.match((await request(app.url, '/team', { token: team.token })).body, { plan: { code: 'pro' } });
  t.equal(
    (await request(app.url, '/team', { method: 'PATCH', token: team.token, body: { name: 'Renamed' } })).status,
    200,
  );
  t.equal((await request(app.url, '/team', { token: team.token })).body.name, 'Renamed');
});

t.test('a deleted sending domain refuses the next send from it', async (t) => {
  const team = await app.createTeam('Domain');
  await services.teams.setTier(team.teamId, 2);
  const domainId = await addVerifiedDomain(app, dns, team.token, 'cached-domain.test');
  t.equal((await send(team.token, 'a@cached-domain.test')).status, 200);
  t.equal((await send(team.token, 'a@cached-domain.test')).status, 200, 'again, from the cache');
  t.equal((await request(app.url, `/domains/${domainId}`, { method: 'DELETE', token: team.token })).status, 200);
  errorShape(t, await send(team.token, 'a@cached-domain.test'), 403, 'validation_error');
});

t.test('last_used_at is still refreshed once a minute with the key cached', async (t) => {
  const team = await app.createTeam('Touch');
  await request(app.url, '/team', { token: team.token });
  const first = (await app.runtime.db.knex('api_keys').where({ id: team.keyId }).first()).last_used_at;
  t.ok(first, 'set at first use');
  await request(app.url, '/team', { token: team.token });
  t.same(
    (await app.runtime.db.knex('api_keys').where({ id: team.keyId }).first()).last_used_at,
    first,
    'not rewritten within the minute',
  );
  await app.runtime.db
    .knex('api_keys')
    .where({ id: team.keyId })
    .update({ last_used_at: new Date(Date.now() - 61_000) });
  await request(app.url, '/team', { token: team.token });
  const refreshed = (await app.runtime.db.knex('api_keys').where({ id: team.keyId }).first()).last_used_at;
  t.ok(new Date(refreshed).getTime() > Date.now() - 30_000, 'refreshed once it is a minute old');
});
