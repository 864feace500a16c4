import t from 'tap';
import { declared } from '../../helpers/declared-schema.js';
import { request, type RequestOptions } from '../../helpers/http.js';
import { createOperator } from '../../helpers/operator.js';
import { APP_USES_REDIS, TEST_DB_KIND } from '../../helpers/test-database.js';
import { startTestApp } from '../../helpers/test-app.js';
import { newId } from '../../../lib/ids.js';

/** The admin API's system page: versions, readiness, dependencies, processes, metrics; recent errors. */
const app = await startTestApp();
t.teardown(() => app.close());
const operator = await createOperator(app);
const admin = (path: string, options: RequestOptions = {}) =>
  request(app.url, path, { ...options, headers: { cookie: operator.cookie, ...options.headers } });

t.test('GET /admin/system: versions, what /ready reports, database and Redis, processes, metrics', async (t) => {
  const leaseId = await app.runtime.services.processLease.ensure();
  const res = await admin('/admin/system');
  t.equal(res.status, 200);
  declared(t, 'GET', '/admin/system', res);
  const ready = await request(app.url, '/ready');
  t.equal(res.body.versions.app, ready.body.version, 'the version /ready reports');
  t.equal(res.body.versions.node, process.version);
  t.match(res.body.versions.database, TEST_DB_KIND === 'sqlite' ? /^3\.\d+/ : /\d+\.\d+/);
  if (APP_USES_REDIS) t.match(res.body.versions.redis, /^\d+\.\d+/, 'the Redis server version');
  else t.equal(res.body.versions.redis, null, 'no Redis configured');
  t.same(
    res.body.readiness.checks.map((check: { name: string }) => check.name),
    ready.body.checks.map((check: { name: string }) => check.name),
    'the same checks as /ready',
  );
  t.equal(res.body.readiness.status, 'ok');
  t.same(res.body.database, { dialect: TEST_DB_KIND, ok: true, error: null });
  t.same(
    res.body.redis,
    APP_USES_REDIS ? { configured: true, ok: true, error: null } : { configured: false, ok: null, error: null },
  );
  t.match(
    res.body.processes.find((p: { id: string }) => p.id === leaseId),
    { pid: process.pid, alive: true },
    'this process, by its lease',
  );
  t.equal(res.body.metrics.enabled, true);
  t.ok(res.body.metrics.addresses.includes('http://127.0.0.1:9464/metrics'), 'the API unit’s metrics address');
  t.same(
    res.body.metrics.by_process.map((p: { process: string }) => p.process),
    ['api', 'mta', 'scheduler', 'submission', 'inbound'],
  );
});

t.test('GET /admin/system/errors: 5xx answers from the request log, and where the logs go', async (t) => {
  const empty = await admin('/admin/system/errors');
  t.equal(empty.status, 200);
  declared(t, 'GET', '/admin/system/errors', empty);
  t.same(empty.body.data, [], 'no errors yet: none are made up');
  t.match(empty.body.logs_go_to, /journal/);
  t.match(empty.body.source, /request_logs/);

  const team = await app.createTeam();
  const requestId = newId();
  const record = {
    teamId: team.teamId,
    apiKeyId: team.keyId,
    startedAt: new Date(),
    method: 'POST',
    userAgent: 'test',
    latencyMs: 3,
    requestBody: {},
    emailId: null,
  };
  await app.runtime.services.requestLogs.record({
    ...record,
    endpoint: '/emails',
    responseStatus: 500,
    requestId,
    responseBody: { statusCode: 500, name: 'application_error', message: 'boom' },
  });
  await app.runtime.services.requestLogs.record({
    ...record,
    endpoint: '/emails',
    responseStatus: 422,
    requestId: newId(),
    responseBody: { statusCode: 422, name: 'validation_error', message: 'no' },
  });
  const res = await admin('/admin/system/errors?limit=10');
  t.equal(res.body.data.length, 1, 'only server errors');
  t.match(res.body.data[0], {
    request_id: requestId,
    method: 'POST',
    path: '/emails',
    status: 500,
    team_id: team.teamId,
    error_name: 'application_error',
  });
  t.equal((await admin('/admin/system/errors?limit=0')).status, 422, 'limit is 1 to 200');
});
