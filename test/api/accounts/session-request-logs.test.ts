import t from 'tap';
import { asBrowser, sessionInTeam } from '../../helpers/accounts.js';
import { request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * Requests the dashboard makes are logged like any other, with `source: dashboard` (the spec's
 * value) and no `api_key_id`: a session stands in a key's place but is not one of the keys.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const { teamId, token, keyId } = await app.createTeam('Logged');
const cookie = await sessionInTeam(app, 'ann@example.test', teamId, 'owner');

t.test('a dashboard request: source dashboard, no key', async (t) => {
  const made = await asBrowser(app, '/api-keys', cookie, { method: 'POST', body: { name: 'from the dashboard' } });
  t.equal(made.status, 201);
  const failed = await asBrowser(app, '/domains', cookie, { method: 'POST', body: { name: '' } });
  t.equal(failed.status, 400);
  const keyed = await request(app.url, '/domains', { method: 'POST', token, body: { name: '' } });
  t.equal(keyed.status, 400);

  const logs = await request(app.url, '/logs?limit=10', { token });
  t.equal(logs.status, 200);
  const byEndpoint = (endpoint: string, source: string) =>
    logs.body.data.find(
      (row: { endpoint: string; source: string }) => row.endpoint === endpoint && row.source === source,
    );
  const fromDashboard = byEndpoint('/domains', 'dashboard');
  t.ok(fromDashboard, 'the refused dashboard write is logged with source dashboard');
  t.equal(fromDashboard.api_key_id, null, 'and names no key');
  const fromKey = byEndpoint('/domains', 'api');
  t.equal(fromKey.api_key_id, keyId, 'a key request names its key');
  t.ok(byEndpoint('/api-keys', 'dashboard'), 'the created key is logged too');

  const only = await request(app.url, '/logs?source=dashboard', { token });
  t.equal(only.status, 200);
  t.ok(only.body.data.length >= 2);
  t.ok(
    only.body.data.every((row: { source: string }) => row.source === 'dashboard'),
    'the source filter finds them',
  );
});
