import t from 'tap';
import { declared } from '../../helpers/declared-schema.js';
import { errorShape, request, type RequestOptions } from '../../helpers/http.js';
import { createOperator } from '../../helpers/operator.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { newId } from '../../../lib/ids.js';
import {
  OPERATOR_LOG_RETENTION_DAYS,
  OPERATOR_LOG_TEAM_ID,
} from '../../../core/platform/request-logs/request-log.service.js';

/** The admin API's request log (GET /admin/logs) and its rate limit: the same rules as a team's. */
const adminOf = async (app: TestApp) => {
  const operator = await createOperator(app);
  const origin = new URL(app.url).origin;
  return (path: string, options: RequestOptions = {}) =>
    request(app.url, path, { ...options, headers: { cookie: operator.cookie, origin, ...options.headers } });
};

t.test("an operator's requests are in the admin log, with bodies, and in no team's", async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const admin = await adminOf(app);
  const team = await app.createTeam('Watched');
  t.equal((await admin('/admin/queue')).status, 200);
  const refused = await admin('/admin/queue/holds', { method: 'POST', body: { domain: 'not a domain' } });
  t.equal(refused.status, 400);
  const held = await admin('/admin/queue/holds', { method: 'POST', body: { domain: 'logged.test' } });
  t.equal(held.status, 201);

  const list = await admin('/admin/logs');
  t.equal(list.status, 200);
  declared(t, 'GET', '/admin/logs', list);
  const lines = list.body.data.map((l: { method: string; endpoint: string; response_status: number }) =>
    [l.method, l.endpoint, l.response_status].join(' '),
  );
  t.ok(lines.includes('GET /admin/queue 200'), 'the read is logged');
  t.ok(lines.includes('POST /admin/queue/holds 400'), 'a refusal is logged');
  t.ok(lines.includes('POST /admin/queue/holds 201'), 'a change is logged');
  t.ok(
    list.body.data.every(
      (l: { source: string; api_key_id: string | null }) => l.source === 'dashboard' && l.api_key_id === null,
    ),
    'from the console, with no key',
  );

  const change = list.body.data.find((l: { response_status: number }) => l.response_status === 201);
  const detail = await admin(`/admin/logs/${change.id}`);
  t.equal(detail.status, 200);
  declared(t, 'GET', '/admin/logs/:log_id', detail);
  t.same(detail.body.request_body, { domain: 'logged.test' });
  t.equal(detail.body.response_body, null, 'a success keeps no response body (as GET /logs)');
  const failure = list.body.data.find((l: { response_status: number }) => l.response_status === 400);
  t.match((await admin(`/admin/logs/${failure.id}`)).body.response_body, { name: 'validation_error' });

  const filtered = await admin('/admin/logs?status=400');
  t.same(
    filtered.body.data.map((l: { response_status: number }) => l.response_status),
    [400],
    'the same filters as GET /logs',
  );

  const teamLogs = await request(app.url, '/logs', { token: team.token });
  t.notOk(
    teamLogs.body.data.some((l: { endpoint: string }) => l.endpoint.startsWith('/admin')),
    "no admin request in a team's log",
  );
  errorShape(t, await admin(`/admin/logs/${newId()}`), 404, 'not_found');
  errorShape(t, await admin('/admin/logs/not-a-uuid'), 422, 'invalid_parameter');
  errorShape(t, await request(app.url, '/admin/logs', { token: team.token }), 403, 'invalid_permission');
});

t.test("the admin API's rate limit: the operator's own bucket, answered with 429 and retry-after", async (t) => {
  const app = await startTestApp({ rateLimitPerSecond: 2 });
  t.teardown(() => app.close());
  const admin = await adminOf(app);
  const answers = [];
  for (let i = 0; i < 6; i++) answers.push(await admin('/admin/queue'));
  const limited = answers.find((a) => a.status === 429);
  t.ok(limited, 'a burst past the limit is refused');
  errorShape(t, limited!, 429, 'rate_limit_exceeded');
  t.ok(Number(limited!.headers.get('retry-after')) >= 1, 'with retry-after');
  t.equal(answers[0]!.headers.get('ratelimit-limit'), '2', 'every answer names the limit');
  const team = await app.createTeam('Elsewhere');
  t.equal((await request(app.url, '/domains', { token: team.token })).status, 200, "a team's bucket is its own");
});

t.test('retention: the admin log is kept a year, not purged as a gone team', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const admin = await adminOf(app);
  t.equal((await admin('/admin/queue')).status, 200);
  const { knex } = app.runtime.db;
  const count = async () =>
    Number((await knex('request_logs').where({ team_id: OPERATOR_LOG_TEAM_ID }).count({ n: '*' }))[0]!.n);
  t.equal(await count(), 1);
  await app.runtime.services.requestLogs.purgeExpired();
  t.equal(await count(), 1, 'a recent admin request stays');
  await knex('request_logs')
    .where({ team_id: OPERATOR_LOG_TEAM_ID })
    .update({ created_at: new Date(Date.now() - (OPERATOR_LOG_RETENTION_DAYS + 1) * 86_400_000) });
  await app.runtime.services.requestLogs.purgeExpired();
  t.equal(await count(), 0, 'one older than the window goes');
});
