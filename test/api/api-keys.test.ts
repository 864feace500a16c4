import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());
const { token, keyId, teamId } = await app.createTeam('Keys');

t.test('the resend SDK creates, lists, updates and removes keys against /api/v1', async (t) => {
  const resend = new Resend(token, { baseUrl: `${app.url}/api/v1` } as never);
  const created = await resend.apiKeys.create({ name: 'From the SDK' });
  t.equal(created.error, null);
  t.match(created.data, { id: String, token: /^svc_/ });
  const listed = await resend.apiKeys.list();
  t.equal(listed.error, null);
  const item = listed.data!.data.find((k) => k.id === created.data!.id)!;
  t.match(item, { name: 'From the SDK', created_at: String, last_used_at: null });
  t.notOk('token' in item, 'lists never carry tokens');
  const updated = await resend.apiKeys.update(created.data!.id, { name: 'Renamed' });
  t.same(updated.data, { object: 'api_key', id: created.data!.id });
  const removed = await resend.apiKeys.remove(created.data!.id);
  t.same(removed.data, { object: 'api_key', id: created.data!.id, deleted: true });
  const after = await resend.apiKeys.list();
  t.notOk(
    after.data!.data.some((k) => k.id === created.data!.id),
    'revoked keys leave the default list',
  );
  const missing = await resend.apiKeys.remove('0199a0a0-0000-7000-8000-000000000000');
  t.equal(missing.error?.name, 'not_found');
});

t.test('create: fields, defaults and refusals', async (t) => {
  const res = await request(app.url, '/api-keys', {
    method: 'POST',
    token,
    body: { name: 'Sender', permission: 'sending_access' },
  });
  t.equal(res.status, 201);
  t.same(Object.keys(res.body).sort(), ['id', 'token']);
  const list = await request(app.url, '/api-keys?permission=sending_access', { token });
  const key = list.body.data.find((k: { id: string }) => k.id === res.body.id);
  t.match(key, {
    permission: 'sending_access',
    status: 'active',
    domain_id: null,
    key_prefix: res.body.token.slice(0, 12),
  });
  t.ok(res.body.token.startsWith(key.key_prefix));

  const missing = errorShape(
    t,
    await request(app.url, '/api-keys', { method: 'POST', token, body: {} }),
    422,
    'missing_required_field',
  );
  t.same(missing.errors, [{ path: 'name', message: 'is required' }]);
  errorShape(t, await request(app.url, '/api-keys', { method: 'POST', token }), 422, 'missing_required_field');
  const long = errorShape(
    t,
    await request(app.url, '/api-keys', { method: 'POST', token, body: { name: 'x'.repeat(256) } }),
    400,
    'validation_error',
  );
  t.equal(long.errors?.[0]?.path, 'name');
  t.equal(
    (await request(app.url, '/api-keys', { method: 'POST', token, body: { name: 'x'.repeat(255) } })).status,
    201,
    '255 characters is fine',
  );
  errorShape(
    t,
    await request(app.url, '/api-keys', { method: 'POST', token, body: { name: 'a', permission: 'admin' } }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await request(app.url, '/api-keys', { method: 'POST', token, body: { name: 'a', extra: 1 } }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await request(app.url, '/api-keys', { method: 'POST', token, body: { name: 'line\nbreak' } }),
    400,
    'validation_error',
  );
  const pinned = errorShape(
    t,
    await request(app.url, '/api-keys', {
      method: 'POST',
      token,
      body: { name: 'a', permission: 'full_access', domain_id: '0199a0a0-0000-7000-8000-000000000000' },
    }),
    400,
    'validation_error',
  );
  t.equal(pinned.errors?.[0]?.path, 'domain_id', 'a full_access key cannot carry domain_id');
  errorShape(
    t,
    await request(app.url, '/api-keys', {
      method: 'POST',
      token,
      body: { name: 'a', domain_id: '0199a0a0-0000-7000-8000-000000000000' },
    }),
    400,
    'validation_error',
  );
});

t.test('list: status, search, permission filters and cursors', async (t) => {
  const team = await app.createTeam('Listing');
  const ids: string[] = [team.keyId];
  for (const name of ['alpha 100%', 'beta_key', 'Gamma', 'delta', 'epsilon']) {
    ids.push((await request(app.url, '/api-keys', { method: 'POST', token: team.token, body: { name } })).body.id);
  }
  await request(app.url, `/api-keys/${ids[4]}`, { method: 'DELETE', token: team.token });

  const active = await request(app.url, '/api-keys', { token: team.token });
  t.equal(active.body.data.length, 5, 'active is the default and excludes revoked');
  t.same(
    active.body.data.map((k: { id: string }) => k.id),
    [ids[5], ids[3], ids[2], ids[1], ids[0]],
    'newest first',
  );
  t.equal((await request(app.url, '/api-keys?status=revoked', { token: team.token })).body.data.length, 1);
  t.equal((await request(app.url, '/api-keys?status=all', { token: team.token })).body.data.length, 6);

  t.same(
    (await request(app.url, '/api-keys?search=GAMMA', { token: team.token })).body.data.map(
      (k: { name: string }) => k.name,
    ),
    ['Gamma'],
    'case-insensitive',
  );
  t.same(
    (await request(app.url, '/api-keys?search=%25', { token: team.token })).body.data.map(
      (k: { name: string }) => k.name,
    ),
    ['alpha 100%'],
    '% is literal',
  );
  t.same(
    (await request(app.url, '/api-keys?search=_', { token: team.token })).body.data.map(
      (k: { name: string }) => k.name,
    ),
    ['beta_key'],
    '_ is literal',
  );
  errorShape(t, await request(app.url, '/api-keys?search=%20%20', { token: team.token }), 422, 'invalid_parameter');
  errorShape(t, await request(app.url, '/api-keys?search=', { token: team.token }), 422, 'invalid_parameter');
  errorShape(t, await request(app.url, '/api-keys?status=expired', { token: team.token }), 422, 'invalid_parameter');

  const page1 = await request(app.url, '/api-keys?limit=2', { token: team.token });
  t.equal(page1.body.has_more, true);
  const page2 = await request(app.url, `/api-keys?limit=2&after=${page1.body.data[1].id}`, { token: team.token });
  t.same(
    page2.body.data.map((k: { id: string }) => k.id),
    [ids[2], ids[1]],
  );
  t.equal(page2.body.has_more, true);
  const page3 = await request(app.url, `/api-keys?limit=2&after=${page2.body.data[1].id}`, { token: team.token });
  t.same(
    page3.body.data.map((k: { id: string }) => k.id),
    [ids[0]],
  );
  t.equal(page3.body.has_more, false);
  const back = await request(app.url, `/api-keys?limit=2&before=${page3.body.data[0].id}`, { token: team.token });
  t.same(
    back.body.data.map((k: { id: string }) => k.id),
    [ids[2], ids[1]],
    'before returns the preceding page in list order',
  );
  t.equal(back.body.has_more, true);

  for (const query of [
    'limit=0',
    'limit=101',
    'limit=abc',
    'limit=1.5',
    `after=nope`,
    `after=${ids[0]}&before=${ids[1]}`,
    'limit=1&limit=2',
  ]) {
    errorShape(t, await request(app.url, `/api-keys?${query}`, { token: team.token }), 422, 'invalid_parameter');
  }
  t.equal((await request(app.url, '/api-keys?limit=100', { token: team.token })).status, 200);
});

t.test('rename and revoke: rules and 404s', async (t) => {
  const created = await request(app.url, '/api-keys', { method: 'POST', token, body: { name: 'temp' } });
  errorShape(
    t,
    await request(app.url, `/api-keys/${created.body.id}`, { method: 'PATCH', token, body: {} }),
    422,
    'missing_required_field',
  );
  errorShape(
    t,
    await request(app.url, `/api-keys/${created.body.id}`, { method: 'PATCH', token, body: { name: '' } }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await request(app.url, `/api-keys/${created.body.id}`, {
      method: 'PATCH',
      token,
      body: { name: 'x', permission: 'sending_access' },
    }),
    400,
    'validation_error',
  );
  errorShape(t, await request(app.url, '/api-keys/not-a-uuid', { method: 'DELETE', token }), 422, 'invalid_parameter');
  errorShape(
    t,
    await request(app.url, '/api-keys/0199a0a0-0000-7000-8000-000000000000', {
      method: 'PATCH',
      token,
      body: { name: 'x' },
    }),
    404,
    'not_found',
  );
  t.equal(
    (
      await request(app.url, `/api-keys/${created.body.id.toUpperCase()}`, {
        method: 'PATCH',
        token,
        body: { name: 'upper' },
      })
    ).status,
    200,
    'ids match case-insensitively',
  );
});

t.test(
  'last_used_at is set on use and refreshed at most once a minute; last_used_request_log_id follows the log',
  async (t) => {
    const team = await app.createTeam('Usage');
    await request(app.url, '/team', { token: team.token });
    const first = (await request(app.url, '/api-keys', { token: team.token })).body.data[0];
    t.type(first.last_used_at, 'string');
    // Logs: [GET /api-keys, GET /team]; the key listing was answered when only GET /team was logged.
    const logs = (await request(app.url, '/logs?limit=2', { token: team.token })).body.data;
    t.same(
      logs.map((l: { endpoint: string }) => l.endpoint),
      ['/api-keys', '/team'],
    );
    t.equal(first.last_used_request_log_id, logs[1].id, 'the latest request log of the key at the time');
    t.equal(logs[1].api_key_id, team.keyId);

    const second = (await request(app.url, '/api-keys', { token: team.token })).body.data[0];
    t.equal(second.last_used_at, first.last_used_at, 'not rewritten within a minute');
    t.not(second.last_used_request_log_id, first.last_used_request_log_id, 'the log id moves with every request');

    await app.runtime.db
      .knex('api_keys')
      .where({ id: team.keyId })
      .update({ last_used_at: new Date(Date.now() - 61_000) });
    await request(app.url, '/team', { token: team.token });
    const refreshed = (await request(app.url, '/api-keys', { token: team.token })).body.data[0];
    t.ok(Date.parse(refreshed.last_used_at) > Date.now() - 30_000, 'refreshed once a minute has passed');
    t.equal(keyId.length, 36);
    t.equal(teamId.length, 36);
  },
);
