import t from 'tap';
import { newId } from '../../lib/ids.js';
import { sessionInTeam } from '../helpers/accounts.js';
import { acceptEmail, deliverAndBounce, sendingTeam, TLS_TRANSCRIPT } from '../helpers/email-activity.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * GET /emails/{id}/deliveries: one entry per recipient with its recent SMTP attempts (egress
 * address and pool, MX host, TLS, the reply split, the transcript), as `mailroom queue show
 * --email` reads them, for the team that sent the email.
 */
const app = await startTestApp({
  config: { mta: { regions: { 'eu-west-1': { ips: [{ address: '127.0.0.1', helo: 'eu.mta.test' }] } } } },
});
t.teardown(() => app.close());
const team = await sendingTeam(app, 'deliveries');
await app.runtime.db.knex('domains').where({ id: team.domainId }).update({ region: 'eu-west-1' });
app.runtime.services.lookupCache.invalidate();
const email = await acceptEmail(app, team, ['a@example.net', 'b@example.net']);
await deliverAndBounce(app, email);
const get = (path: string, token = team.token) => request(app.url, path, { token });

t.test('each recipient’s delivery with its attempts', async (t) => {
  const res = await get(`/emails/${email.id}/deliveries`);
  t.equal(res.status, 200);
  t.same(Object.keys(res.body), ['object', 'has_more', 'data']);
  t.equal(res.body.object, 'list');
  t.equal(res.body.has_more, false);
  const [delivered, bounced] = res.body.data;
  t.same(Object.keys(delivered), [
    'object',
    'id',
    'recipient',
    'state',
    'attempts',
    'next_attempt_at',
    'expires_at',
    'created_at',
    'updated_at',
    'attempt_log',
  ]);
  t.match(delivered, { object: 'delivery', recipient: 'a@example.net', state: 'delivered', attempts: 1 });
  t.equal(delivered.next_attempt_at, null, 'settled: no next attempt');
  t.equal(delivered.attempt_log.length, 1);
  t.same(delivered.attempt_log[0], {
    at: delivered.attempt_log[0].at,
    outcome: 'delivered',
    egress_ip: '127.0.0.1',
    egress_region: 'eu-west-1',
    egress_helo: 'eu.mta.test',
    mx_host: 'mx.example.net',
    tls: { used: true, version: null, cipher: null },
    reply: { code: 250, enhanced_code: '2.0.0', text: 'Ok: queued as 4ABC', raw: '250 2.0.0 Ok: queued as 4ABC' },
    duration_ms: 42,
    transcript: TLS_TRANSCRIPT,
  });
  t.match(bounced, { recipient: 'b@example.net', state: 'bounced' });
  t.match(bounced.attempt_log[0], {
    outcome: 'bounced',
    tls: { used: false },
    reply: { code: 550, enhanced_code: '5.1.1', text: /User unknown/ },
  });
});

t.test('transcripts=false leaves the transcripts (and so the TLS flag) out', async (t) => {
  const res = await get(`/emails/${email.id}/deliveries?transcripts=false`);
  t.equal(res.status, 200);
  const attempt = res.body.data[0].attempt_log[0];
  t.notOk('transcript' in attempt);
  t.same(attempt.tls, { used: null, version: null, cipher: null });
});

t.test('a queued email has none yet; a waiting delivery shows its next attempt', async (t) => {
  const queued = await acceptEmail(app, team, ['q@example.net']);
  t.same((await get(`/emails/${queued.id}/deliveries`)).body, { object: 'list', has_more: false, data: [] });
  await app.runtime.services.deliveries.handOver(200, 'transactional');
  const waiting = (await get(`/emails/${queued.id}/deliveries`)).body.data[0];
  t.match(waiting, { recipient: 'q@example.net', state: 'queued', attempts: 0, attempt_log: [] });
  t.type(waiting.next_attempt_at, 'string');
});

t.test('at most the 10 most recent attempts per delivery, oldest first', async (t) => {
  const retried = await acceptEmail(app, team, ['r@example.net']);
  await app.runtime.services.deliveries.handOver(200, 'transactional');
  const knex = app.runtime.db.knex;
  const delivery = (await knex('deliveries').where({ email_id: retried.id }).first()) as { id: string };
  for (let i = 0; i < 12; i++) {
    await knex('delivery_attempts').insert({
      id: newId(),
      delivery_id: delivery.id,
      email_id: retried.id,
      team_id: team.teamId,
      egress_ip: '198.51.100.7',
      mx_host: 'mx.example.net',
      outcome: 'deferred',
      reply: `451 4.7.1 try ${i}`,
      transcript: null,
      duration_ms: 5,
      created_at: new Date(Date.now() + i),
    });
  }
  const log = (await get(`/emails/${retried.id}/deliveries`)).body.data[0].attempt_log;
  t.equal(log.length, 10);
  t.same(
    log.map((a: { reply: { text: string } }) => a.reply.text),
    Array.from({ length: 10 }, (_, i) => `try ${i + 2}`),
  );
  t.match(log[0], { egress_ip: '198.51.100.7', egress_region: null, egress_helo: null, transcript: null });
  t.same(log[0].tls, { used: null, version: null, cipher: null }, 'no transcript kept: TLS unknown');
});

t.test('the dashboard’s session cookie and a sending_access key read it too', async (t) => {
  const cookie = await sessionInTeam(app, 'dee@example.com', team.teamId, 'member');
  t.equal((await request(app.url, `/emails/${email.id}/deliveries`, { headers: { cookie } })).status, 200);
  const sending = await app.runtime.services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });
  t.equal((await get(`/emails/${email.id}/deliveries`, sending.token)).status, 200);
});

t.test('errors', async (t) => {
  const other = await sendingTeam(app, 'other');
  errorShape(t, await get(`/emails/${email.id}/deliveries`, other.token), 404, 'not_found');
  errorShape(t, await get(`/emails/${newId()}/deliveries`), 404, 'not_found');
  const malformed = errorShape(t, await get('/emails/12/deliveries'), 422, 'invalid_parameter');
  t.match(malformed.errors, [{ path: 'email_id' }]);
  const flag = errorShape(t, await get(`/emails/${email.id}/deliveries?transcripts=yes`), 422, 'invalid_parameter');
  t.match(flag.errors, [{ path: 'transcripts', message: 'must be true or false' }]);
  const unknown = errorShape(t, await get(`/emails/${email.id}/deliveries?limit=5`), 422, 'invalid_parameter');
  t.match(unknown.message, /unknown/);
  errorShape(t, await request(app.url, `/emails/${email.id}/deliveries`), 401, 'missing_api_key');
});
