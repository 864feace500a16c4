import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { startTestApp } from '../helpers/test-app.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';

const dns = await TestDnsServer.start();
const app = await startTestApp({ env: { MAILROOM_DNS_SERVERS: dns.address } });
t.teardown(async () => {
  await app.close();
  await dns.close();
});

const verifiedDomain = (token: string, name: string) => addVerifiedDomain(app, dns, token, name);

t.test('a sending_access key may be pinned only to a verified domain of its team', async (t) => {
  const team = await app.createTeam('Pins', 'unlimited');
  const verified = await verifiedDomain(team.token, 'pinned.test');
  const unverified = (
    await request(app.url, '/domains', { method: 'POST', token: team.token, body: { name: 'unverified.test' } })
  ).body.id;
  const other = await app.createTeam('Other', 'unlimited');
  const foreign = await verifiedDomain(other.token, 'foreign.test');

  const ok = await request(app.url, '/api-keys', {
    method: 'POST',
    token: team.token,
    body: { name: 'pinned', permission: 'sending_access', domain_id: verified },
  });
  t.equal(ok.status, 201);
  const listed = (await request(app.url, '/api-keys?permission=sending_access', { token: team.token })).body.data[0];
  t.equal(listed.domain_id, verified);

  for (const [what, id] of [
    ['unverified', unverified],
    ['another team', foreign],
    ['unknown', '0199a0a0-0000-7000-8000-000000000000'],
  ] as const) {
    const body = errorShape(
      t,
      await request(app.url, '/api-keys', {
        method: 'POST',
        token: team.token,
        body: { name: 'x', permission: 'sending_access', domain_id: id },
      }),
      422,
      'validation_error',
    );
    t.equal(body.errors?.[0]?.path, 'domain_id', `${what} domain refused`);
  }
  const full = errorShape(
    t,
    await request(app.url, '/api-keys', {
      method: 'POST',
      token: team.token,
      body: { name: 'x', permission: 'full_access', domain_id: verified },
    }),
    400,
    'validation_error',
  );
  t.equal(full.errors?.[0]?.path, 'domain_id', 'never on a full_access key');
});
