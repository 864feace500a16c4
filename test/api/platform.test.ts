import t from 'tap';
import { z } from 'zod';
import { defineRoute } from '../../api/route.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

// A route that fails unexpectedly, to see the 500 the spec describes.
const boom = defineRoute({
  method: 'GET',
  path: '/test/boom',
  operationId: 'testBoom',
  summary: 'test only',
  tag: 'test',
  permission: 'full_access',
  scope: null,
  responses: { 200: { description: 'never' } },
  handler: async () => {
    throw new Error('database exploded');
  },
});

// A route whose answer carries a header value Node refuses to send (outside Latin-1).
const badHeader = defineRoute({
  method: 'GET',
  path: '/test/bad-header',
  operationId: 'testBadHeader',
  summary: 'test only',
  tag: 'test',
  permission: 'full_access',
  scope: null,
  responses: { 200: { description: 'never' } },
  handler: async () => ({ status: 200, body: {}, headers: { 'x-file-name': 'Отчёт.pdf' } }),
});

const app = await startTestApp({ extraRoutes: [boom, badHeader] });
t.teardown(() => app.close());
const { token, teamId } = await app.createTeam('Platform');

t.test('a request without User-Agent is 403 validation_error with code 1010, on every route', async (t) => {
  for (const path of ['/api-keys', '/api/v1/api-keys', '/health', '/no/such/route']) {
    const res = await request(app.url, path, { token, userAgent: null });
    const body = errorShape(t, res, 403, 'validation_error');
    t.equal(body.code, 1010, `${path}: code 1010`);
  }
});

t.test('unknown route is 404 not_found; known path with a wrong method is 405 with Allow', async (t) => {
  errorShape(t, await request(app.url, '/nope', { token }), 404, 'not_found');
  errorShape(t, await request(app.url, '/api/v1/nope', { token }), 404, 'not_found');
  const res = await request(app.url, '/api-keys', { method: 'PUT', token });
  errorShape(t, res, 405, 'method_not_allowed');
  t.match(res.headers.get('allow'), /GET/);
  t.match(res.headers.get('allow'), /POST/);
  errorShape(t, await request(app.url, '/api/v1/team', { method: 'DELETE', token }), 405, 'method_not_allowed');
});

t.test('every response carries a request id; a 500 names it in the message', async (t) => {
  const ok = await request(app.url, '/health');
  t.match(ok.headers.get('x-request-id'), /^[0-9a-f-]{36}$/);
  const res = await request(app.url, '/test/boom', { token });
  const body = errorShape(t, res, 500, 'application_error');
  const requestId = res.headers.get('x-request-id')!;
  t.ok(body.message.includes(requestId), 'message carries the request id');
  t.notMatch(body.message, /exploded/, 'the internal error is not leaked');
});

t.test(
  'an answer whose header cannot be sent becomes the logged 500 error body, not a bare text/plain 500',
  async (t) => {
    const logged: unknown[] = [];
    const logger = app.runtime.logger as unknown as { error: (...args: unknown[]) => void };
    const original = logger.error;
    logger.error = function (this: unknown, ...args: unknown[]) {
      logged.push(args);
      return original.apply(this, args);
    };
    t.teardown(() => {
      logger.error = original;
    });
    const res = await request(app.url, '/test/bad-header', { token });
    const body = errorShape(t, res, 500, 'application_error');
    t.match(res.headers.get('content-type'), /^application\/json/);
    t.equal(res.headers.get('x-file-name'), null, 'the header that failed is not half-sent');
    t.ok(body.message.includes(res.headers.get('x-request-id')!), 'the message names the request id');
    t.ok(
      logged.some((args) => JSON.stringify(args).includes('unexpected error')),
      'the failure is logged as an unexpected error',
    );
  },
);

t.test('credentials: missing, malformed, unknown', async (t) => {
  errorShape(t, await request(app.url, '/api-keys'), 401, 'missing_api_key');
  errorShape(
    t,
    await request(app.url, '/api-keys', { headers: { authorization: 'Basic abc' } }),
    401,
    'missing_api_key',
  );
  errorShape(t, await request(app.url, '/api-keys', { headers: { authorization: 'Bearer' } }), 401, 'missing_api_key');
  errorShape(
    t,
    await request(app.url, '/api-keys', { token: 'svc_notarealkeyatall000000000000' }),
    401,
    'invalid_api_key',
  );
  errorShape(
    t,
    await request(app.url, '/api/v1/team', { token: 'svco_unknownaccesstoken0000' }),
    401,
    'invalid_api_key',
  );
});

t.test('a sending_access key is 401 restricted_api_key off sending routes', async (t) => {
  const key = await app.runtime.services.apiKeys.create(teamId, { name: 'sender', permission: 'sending_access' });
  for (const path of ['/api-keys', '/team', '/team/members', '/logs']) {
    errorShape(t, await request(app.url, path, { token: key.token }), 401, 'restricted_api_key');
  }
  errorShape(
    t,
    await request(app.url, '/api-keys', { method: 'POST', token: key.token, body: { name: 'x' } }),
    401,
    'restricted_api_key',
  );
});

t.test('a revoked key is 403 restricted_api_key from the next request on', async (t) => {
  const key = await app.runtime.services.apiKeys.create(teamId, { name: 'to revoke', permission: 'full_access' });
  t.equal((await request(app.url, '/team', { token: key.token })).status, 200);
  const del = await request(app.url, `/api-keys/${key.id}`, { method: 'DELETE', token: key.token });
  t.same(del.body, { object: 'api_key', id: key.id, deleted: true });
  errorShape(t, await request(app.url, '/team', { token: key.token }), 403, 'restricted_api_key');
});

t.test('a suspended key, or any key of a suspended team, is 403 suspended_api_key', async (t) => {
  const key = await app.runtime.services.apiKeys.create(teamId, { name: 'to suspend', permission: 'full_access' });
  await app.runtime.services.apiKeys.setSuspended(teamId, key.id, true);
  errorShape(t, await request(app.url, '/team', { token: key.token }), 403, 'suspended_api_key');
  const listed = await request(app.url, '/api-keys', { token });
  t.ok(
    listed.body.data.some((k: { id: string; status: string }) => k.id === key.id && k.status === 'suspended'),
    'listed as active includes suspended',
  );
  await app.runtime.services.apiKeys.setSuspended(teamId, key.id, false);
  t.equal((await request(app.url, '/team', { token: key.token })).status, 200, 'works again once reactivated');

  const other = await app.createTeam('Suspended team');
  await app.runtime.services.teams.setRiskState(other.teamId, 'suspended');
  errorShape(t, await request(app.url, '/team', { token: other.token }), 403, 'suspended_api_key');
  await app.runtime.services.teams.setRiskState(other.teamId, 'normal');
  t.equal((await request(app.url, '/team', { token: other.token })).status, 200);
});

t.test('bad bodies: invalid JSON and non-JSON content are 400 validation_error', async (t) => {
  const res = await request(app.url, '/api-keys', {
    method: 'POST',
    token,
    rawBody: '{"name":',
    headers: { 'content-type': 'application/json' },
  });
  errorShape(t, res, 400, 'validation_error');
  const form = await request(app.url, '/api-keys', {
    method: 'POST',
    token,
    rawBody: 'name=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  errorShape(t, form, 400, 'validation_error');
});

t.test('rate-limit headers are on every response, errors included', async (t) => {
  for (const res of [
    await request(app.url, '/team', { token }),
    await request(app.url, '/nope', { token }),
    await request(app.url, '/health'),
  ]) {
    t.match(res.headers.get('ratelimit-limit'), /^\d+$/);
    t.match(res.headers.get('ratelimit-remaining'), /^\d+$/);
    t.match(res.headers.get('ratelimit-reset'), /^\d+$/);
    t.equal(res.headers.get('retry-after'), null, 'retry-after only on 429');
  }
});

t.test('both bases serve the same routes', async (t) => {
  const a = await request(app.url, '/team', { token });
  const b = await request(app.url, '/api/v1/team', { token });
  t.equal(a.status, 200);
  t.same(a.body, b.body);
  t.ok(z.string().uuid().safeParse(a.body.id).success);
});

t.test('a body over api.maxBodyBytes is 400 validation_error, declared or chunked, never a reset', async (t) => {
  const small = await startTestApp({ config: { api: { maxBodyBytes: 4096 } } });
  t.teardown(() => small.close());
  const team = await small.createTeam('Small');
  const { request: httpRequest } = await import('node:http');
  const post = (chunked: boolean) =>
    new Promise<{ status: number; body: string; connection: string | undefined }>((resolve, reject) => {
      const url = new URL('/api-keys', small.url);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': 'tests',
        authorization: `Bearer ${team.token}`,
      };
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const count = 64; // 4 MB, far over the limit, sent in 64 KB writes
      if (!chunked) headers['content-length'] = String(chunk.length * count);
      const req = httpRequest(url, { method: 'POST', headers }, (res) => {
        let body = '';
        res.on('data', (part: Buffer) => (body += part));
        res.on('end', () => resolve({ status: res.statusCode!, body, connection: res.headers.connection }));
      });
      req.on('error', reject);
      let sent = 0;
      const write = () => {
        while (sent < count) {
          sent++;
          if (!req.write(chunk)) return void req.once('drain', write);
        }
        req.end();
      };
      write();
    });
  for (const chunked of [false, true]) {
    const res = await post(chunked);
    t.equal(res.status, 400, `${chunked ? 'chunked' : 'declared'}: 400`);
    t.match(JSON.parse(res.body), {
      statusCode: 400,
      name: 'validation_error',
      message: 'Request body is larger than 4096 bytes',
    });
    t.equal(res.connection, 'close', 'the connection is closed after the refusal');
  }
});
