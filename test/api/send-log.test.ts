import t from 'tap';
import { request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';

// POST /emails commits its request log in the same transaction as the email row.
const dns = await TestDnsServer.start();
const app = await startTestApp({ env: { MAILROOM_DNS_SERVERS: dns.address } });
t.teardown(async () => {
  await app.close();
  await dns.close();
});
const team = await app.createTeam('Send log');
await app.runtime.services.teams.setTier(team.teamId, 2);
await addVerifiedDomain(app, dns, team.token, 'send-log.test');
const logsOf = (requestId: string) => app.runtime.db.knex('request_logs').where({ request_id: requestId });

t.test('an accepted send has exactly one log entry, linked to its email', async (t) => {
  const res = await request(app.url, '/emails', {
    method: 'POST',
    token: team.token,
    body: { from: 'a@send-log.test', to: 'x@example.net', subject: 's', html: '<p>secret</p>' },
  });
  t.equal(res.status, 200);
  const logs = await logsOf(res.headers.get('x-request-id')!);
  t.equal(logs.length, 1);
  t.match(logs[0], {
    endpoint: '/emails',
    method: 'POST',
    response_status: 200,
    email_id: res.body.id,
    api_key_id: team.keyId,
  });
  t.same(
    JSON.parse(logs[0].request_body),
    { from: 'a@send-log.test', to: 'x@example.net', subject: { bytes: 1 }, html: { bytes: 13 } },
    'redacted as before',
  );
  t.equal(logs[0].response_body, null);
  const email = await app.runtime.db.knex('emails').where({ id: res.body.id }).first();
  t.ok(email, 'the row it names exists');
});

t.test('a refused send has exactly one log entry with its error', async (t) => {
  const res = await request(app.url, '/emails', {
    method: 'POST',
    token: team.token,
    body: { from: 'a@not-verified.test', to: 'x@example.net', subject: 's', text: 't' },
  });
  t.equal(res.status, 403);
  const logs = await logsOf(res.headers.get('x-request-id')!);
  t.equal(logs.length, 1);
  t.match(logs[0], { response_status: 403, email_id: null });
  t.equal(JSON.parse(logs[0].response_body).name, 'validation_error');
});

t.test('an idempotent replay is logged as its own request', async (t) => {
  const body = { from: 'a@send-log.test', to: 'x@example.net', subject: 's', text: 't' };
  const headers = { 'idempotency-key': `k-${Date.now()}` };
  const first = await request(app.url, '/emails', { method: 'POST', token: team.token, body, headers });
  const replay = await request(app.url, '/emails', { method: 'POST', token: team.token, body, headers });
  t.equal(replay.headers.get('idempotent-replayed'), 'true');
  t.equal((await logsOf(first.headers.get('x-request-id')!)).length, 1);
  t.equal((await logsOf(replay.headers.get('x-request-id')!)).length, 1);
});

t.test('concurrent sends: one entry each, every one naming its own email', async (t) => {
  const responses = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      request(app.url, '/emails', {
        method: 'POST',
        token: team.token,
        body: { from: 'a@send-log.test', to: `r${i}@example.net`, subject: `s${i}`, text: 't' },
      }),
    ),
  );
  t.ok(responses.every((r) => r.status === 200));
  const logs = await app.runtime.db.knex('request_logs').whereIn(
    'request_id',
    responses.map((r) => r.headers.get('x-request-id')!),
  );
  t.equal(logs.length, 30);
  t.same(new Set(logs.map((l: { email_id: string }) => l.email_id)), new Set(responses.map((r) => r.body.id)));
});
