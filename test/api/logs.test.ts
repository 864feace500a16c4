import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());

t.test('every request of a team is logged with the spec fields; reading logs is itself logged', async (t) => {
  const { token, keyId } = await app.createTeam('Logs');
  await request(app.url, '/api/v1/team', { token });
  await request(app.url, '/api-keys?limit=1000', { token });
  const list = await request(app.url, '/logs', { token });
  t.equal(list.status, 200);
  t.equal(list.body.object, 'list');
  const [badList, team] = list.body.data;
  t.same(
    Object.keys(team).sort(),
    [
      'api_key_id',
      'created_at',
      'endpoint',
      'id',
      'latency_ms',
      'method',
      'object',
      'request_id',
      'response_status',
      'source',
      'user_agent',
    ].sort(),
  );
  t.match(team, {
    object: 'log',
    endpoint: '/team',
    method: 'GET',
    response_status: 200,
    user_agent: 'mailroom-tests/1.0',
    source: 'api',
    api_key_id: keyId,
  });
  t.match(badList, { endpoint: '/api-keys', response_status: 422 });
  const again = await request(app.url, '/logs', { token });
  t.equal(again.body.data[0].endpoint, '/logs', 'the first GET /logs was logged');

  const detail = await request(app.url, `/logs/${badList.id}`, { token });
  t.equal(detail.status, 200);
  t.equal(detail.body.response_body.name, 'invalid_parameter', 'failed requests keep their response body');
  t.equal(detail.body.email_id, null);
  const ok = await request(app.url, `/logs/${team.id}`, { token });
  t.equal(ok.body.response_body, null, 'successful requests keep none');
  t.equal(ok.body.request_id.length, 36);
});

t.test('request ids in logs match the response header', async (t) => {
  const { token } = await app.createTeam();
  const res = await request(app.url, '/team', { token });
  const log = (await request(app.url, '/logs?limit=2', { token })).body.data.find(
    (l: { endpoint: string }) => l.endpoint === '/team',
  );
  t.equal(log.request_id, res.headers.get('x-request-id'));
});

t.test('source comes from the User-Agent: the resend SDK is sdk:node', async (t) => {
  const { token } = await app.createTeam();
  const resend = new Resend(token, { baseUrl: `${app.url}/api/v1` } as never);
  await resend.apiKeys.list();
  const logs = (await request(app.url, '/logs', { token })).body.data;
  t.equal(logs[0].source, 'sdk:node');
  t.equal((await request(app.url, '/logs?source=sdk:node', { token })).body.data.length, 1);
  t.ok(
    (await request(app.url, '/logs?exclude_source=sdk:node', { token })).body.data.every(
      (l: { source: string }) => l.source !== 'sdk:node',
    ),
  );
});

t.test('filters: status, user_agent, search, dates', async (t) => {
  const { token } = await app.createTeam();
  await request(app.url, '/team', { token, userAgent: 'agent-one' });
  await request(app.url, '/api-keys/0199a0a0-0000-7000-8000-000000000000', {
    method: 'DELETE',
    token,
    userAgent: 'agent-two',
  });
  const byStatus = (await request(app.url, '/logs?status=404', { token })).body.data;
  t.same(
    byStatus.map((l: { endpoint: string }) => l.endpoint),
    ['/api-keys/0199a0a0-0000-7000-8000-000000000000'],
  );
  t.equal((await request(app.url, '/logs?user_agent=agent-one', { token })).body.data.length, 1);
  t.equal((await request(app.url, '/logs?user_agent=agent', { token })).body.data.length, 0, 'user_agent is exact');
  t.equal(
    (await request(app.url, '/logs?search=API-KEYS', { token })).body.data.length,
    1,
    'search is a case-insensitive substring of the path',
  );
  const now = new Date();
  const from = new Date(now.getTime() - 60_000).toISOString();
  const to = new Date(now.getTime() + 60_000).toISOString();
  t.ok((await request(app.url, `/logs?start_date=${from}&end_date=${to}`, { token })).body.data.length >= 2);
  t.equal((await request(app.url, `/logs?start_date=${to}`, { token })).body.data.length, 0);
  t.equal((await request(app.url, `/logs?end_date=${from}`, { token })).body.data.length, 0);

  for (const query of [
    'start_date=2026-01-01',
    'end_date=yesterday',
    `start_date=${to}&end_date=${from}`,
    'status=abc',
    'search=',
    'search=' + 'x'.repeat(201),
    'unknown=1',
  ]) {
    errorShape(t, await request(app.url, `/logs?${query}`, { token }), 422, 'invalid_parameter');
  }
});

t.test('logs are per team: another team reads none of them', async (t) => {
  const a = await app.createTeam();
  const b = await app.createTeam();
  await request(app.url, '/team', { token: a.token });
  const aLog = (await request(app.url, '/logs', { token: a.token })).body.data[0];
  errorShape(t, await request(app.url, `/logs/${aLog.id}`, { token: b.token }), 404, 'not_found');
  t.ok(
    (await request(app.url, '/logs', { token: b.token })).body.data.every(
      (l: { api_key_id: string }) => l.api_key_id === b.keyId,
    ),
  );
});

t.test('a sending_access key cannot read logs', async (t) => {
  const { teamId } = await app.createTeam();
  const key = await app.runtime.services.apiKeys.create(teamId, { name: 's', permission: 'sending_access' });
  errorShape(t, await request(app.url, '/logs', { token: key.token }), 401, 'restricted_api_key');
});

t.test('retention: logs older than the plan window are deleted by the job', async (t) => {
  const free = await app.createTeam('Free plan');
  const pro = await app.createTeam('Pro plan');
  await app.runtime.services.teams.setPlan(pro.teamId, 'pro');
  for (const team of [free, pro]) await request(app.url, '/team', { token: team.token });
  const knex = app.runtime.db.knex;
  const aged = new Date(Date.now() - 45 * 86_400_000);
  await knex('request_logs').whereIn('team_id', [free.teamId, pro.teamId]).update({ created_at: aged });
  const deleted = await app.runtime.services.requestLogs.purgeExpired(1);
  t.ok(deleted >= 1);
  t.equal(
    Number((await knex('request_logs').where({ team_id: free.teamId }).count({ n: '*' }))[0]!.n),
    0,
    'free plan: 30 days',
  );
  t.equal(
    Number((await knex('request_logs').where({ team_id: pro.teamId }).count({ n: '*' }))[0]!.n),
    1,
    'pro plan keeps 90 days',
  );
});
