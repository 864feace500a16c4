import t from 'tap';
import { sessionInTeam } from '../helpers/accounts.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * GET /logs filters for the dashboard's log page: method, status (a code or a class), path (a
 * prefix of the endpoint), api_key_id and source, combined, with the cursors.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam('Logs', 'unlimited');
const second = await app.runtime.services.apiKeys.create(team.teamId, { name: 'second', permission: 'full_access' });
const missingKey = '0199a0a0-0000-7000-8000-000000000000';

// What the filters pick from, oldest first.
await request(app.url, '/team', { token: team.token }); // GET 200
await request(app.url, `/api-keys/${missingKey}`, { method: 'DELETE', token: team.token }); // DELETE 404
await request(app.url, '/api-keys', { method: 'POST', token: team.token, body: {} }); // POST 422
await request(app.url, '/api/v1/api-keys', { token: second.token, userAgent: 'custom-agent/2' }); // GET 200, key 2
await request(app.url, '/domains', { token: second.token }); // GET 200, key 2

type Log = { endpoint: string; method: string; response_status: number; api_key_id: string; source: string };
const logs = async (query: string, token = team.token) => {
  const res = await request(app.url, `/logs?${query}`, { token });
  // Not an assertion of the root test (it would end it early): a refusal here is a failure.
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
  // Reading logs is itself logged: only the requests above are looked at.
  return (res.body.data as Log[]).filter((log) => log.endpoint !== '/logs');
};
const lines = (found: Log[]) => found.map((log) => `${log.method} ${log.endpoint} ${log.response_status}`);

t.test('method, any case', async (t) => {
  t.same(lines(await logs('method=DELETE')), [`DELETE /api-keys/${missingKey} 404`]);
  t.same(lines(await logs('method=post')), ['POST /api-keys 422']);
});

t.test('status: a code, or a class', async (t) => {
  t.same(lines(await logs('status=422')), ['POST /api-keys 422']);
  t.same(lines(await logs('status=4xx')), ['POST /api-keys 422', `DELETE /api-keys/${missingKey} 404`]);
  t.same(lines(await logs('status=4XX&method=DELETE')), [`DELETE /api-keys/${missingKey} 404`]);
  t.same(lines(await logs('status=5xx')), []);
  t.same(
    lines(await logs('status=2xx&path=/api-keys')),
    ['GET /api-keys 200'],
    'the /api/v1 base is not part of the endpoint',
  );
});

t.test('path: a prefix of the endpoint (with or without /api/v1)', async (t) => {
  const apiKeys = ['GET /api-keys 200', 'POST /api-keys 422', `DELETE /api-keys/${missingKey} 404`];
  t.same(lines(await logs('path=/api-keys')), apiKeys);
  t.same(lines(await logs('path=/api/v1/api-keys')), apiKeys);
  t.same(lines(await logs(`path=/api-keys/${missingKey}`)), [apiKeys[2]]);
  t.same(lines(await logs('path=/dom')), ['GET /domains 200']);
  t.same(lines(await logs('path=/domains/')), [], 'a prefix, not a word');
  t.same(lines(await logs('path=/api-key_')), [], '_ is a character');
});

t.test('api_key_id and source, with the cursors', async (t) => {
  const byKey = await logs(`api_key_id=${second.id}`);
  t.same(lines(byKey), ['GET /domains 200', 'GET /api-keys 200']);
  t.ok(byKey.every((log) => log.api_key_id === second.id));
  t.same(lines(await logs(`api_key_id=${second.id.toUpperCase()}&source=api`)), lines(byKey));
  t.same(lines(await logs(`api_key_id=${team.keyId}&method=GET&path=/team`)), ['GET /team 200']);
  const first = await request(app.url, `/logs?api_key_id=${second.id}&limit=1`, { token: team.token });
  t.equal(first.body.has_more, true);
  t.same(lines(first.body.data), ['GET /domains 200']);
  const next = await request(app.url, `/logs?api_key_id=${second.id}&limit=1&after=${first.body.data[0].id}`, {
    token: team.token,
  });
  t.same(lines(next.body.data), ['GET /api-keys 200']);
  t.equal(next.body.has_more, false);
});

t.test('the session cookie filters the same way', async (t) => {
  const cookie = await sessionInTeam(app, 'logs@example.com', team.teamId, 'owner');
  const res = await request(app.url, '/logs?status=4xx&method=DELETE', { headers: { cookie } });
  t.equal(res.status, 200, res.text);
  t.same(lines(res.body.data), [`DELETE /api-keys/${missingKey} 404`]);
});

t.test('another team: its key ids name nothing here', async (t) => {
  const other = await app.createTeam('Other');
  t.same(await logs(`api_key_id=${second.id}`, other.token), []);
});

t.test('invalid values: 422 invalid_parameter', async (t) => {
  for (const query of [
    'method=FETCH',
    'method=',
    'status=6xx',
    'status=4x',
    'status=40',
    'status=xx',
    'path=api-keys',
    'path=',
    `path=/${'a'.repeat(2048)}`,
    'api_key_id=not-a-key',
    'source=',
  ]) {
    errorShape(t, await request(app.url, `/logs?${query}`, { token: team.token }), 422, 'invalid_parameter');
  }
});
