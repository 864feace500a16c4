import t from 'tap';
import { MAX_JSON_DEPTH } from '../../api/request-body.js';
import { signup } from '../helpers/accounts.js';
import { errorShape, request, type RequestOptions } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { createOperator } from '../helpers/operator.js';
import { accessToken } from './mcp/mcp-fixture.js';

/**
 * JSON bodies nest at most MAX_JSON_DEPTH levels. Generated from /openapi.json: every route
 * that takes a JSON body gets deep arrays, deep objects, and its example body with a deep value
 * in each field (a template variable's fallback_value once answered 500: a stack overflow while
 * serialising). Never a 5xx: always 400 validation_error naming the limit, and /health is fine
 * after each request.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const { token, teamId } = await app.createTeam('Deep JSON');
// /mcp takes only an OAuth access token.
const mcpToken = await accessToken(app, teamId, ['emails:read']);
// Session routes take the dashboard's cookie (and its Origin), not a key.
const { cookie } = await signup(app, 'deep-json@example.com');
const origin = new URL(app.url).origin;
// Admin routes take only an operator's session (MFA on), with the same Origin rule.
const operator = await createOperator(app);

const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const nested = (depth: number): unknown => JSON.parse(deepObject(depth));

type Operation = {
  requestBody?: { content?: Record<string, { example?: unknown }> };
  'x-svc-permission'?: string | null;
};
const doc = (await request(app.url, '/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
const targets = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([, op]) => op.requestBody?.content?.['application/json'])
    .map(([method, op]) => ({
      method: method.toUpperCase(),
      path: path.replace(/\{[^}]+\}/g, '0196f0e0-0000-7000-8000-000000000000'),
      example: op.requestBody!.content!['application/json']!.example,
      session: op['x-svc-permission'] === 'session',
      operator: op['x-svc-permission'] === 'operator',
      mcp: path === '/mcp',
    })),
);

t.ok(targets.length >= 15, `${targets.length} routes take a JSON body`);

for (const target of targets) {
  t.test(`${target.method} ${target.path}`, async (t) => {
    const bodies: Array<[string, string]> = [
      ['deep array', deepArray(5000)],
      ['deep object', deepObject(5000)],
      ['one level too deep', deepArray(MAX_JSON_DEPTH + 1)],
    ];
    if (target.example && typeof target.example === 'object' && !Array.isArray(target.example)) {
      for (const field of Object.keys(target.example))
        bodies.push([`example with a deep ${field}`, JSON.stringify({ ...target.example, [field]: nested(3000) })]);
    }
    if (Array.isArray(target.example)) bodies.push(['example items nested deep', JSON.stringify([nested(3000)])]);
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const credential: RequestOptions = target.operator
      ? { headers: { ...json, cookie: operator.cookie, origin } }
      : target.session
        ? { headers: { ...json, cookie, origin } }
        : { token: target.mcp ? mcpToken : token, headers: json };
    for (const [label, rawBody] of bodies) {
      const res = await request(app.url, target.path, { method: target.method, rawBody, ...credential });
      const error = errorShape(t, res, 400, 'validation_error');
      t.match(
        error.message,
        new RegExp(`nested deeper than ${MAX_JSON_DEPTH} levels`),
        `${label}: the message names the limit`,
      );
      t.equal((await request(app.url, '/health')).status, 200, `${label}: /health after it`);
    }
    const atLimit = await request(app.url, target.path, {
      method: target.method,
      rawBody: deepArray(MAX_JSON_DEPTH),
      ...credential,
    });
    t.ok(
      atLimit.status < 500 && !/nested deeper/.test(atLimit.text),
      `${MAX_JSON_DEPTH} levels are not refused for their depth (${atLimit.status})`,
    );
  });
}
