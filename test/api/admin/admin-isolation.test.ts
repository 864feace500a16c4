import t from 'tap';
import { apiRoutes } from '../../../api/routes/index.js';
import type { RouteDef } from '../../../api/route.js';
import { newId } from '../../../lib/ids.js';
import { sessionInTeam } from '../../helpers/accounts.js';
import { errorShape, request, type RequestOptions } from '../../helpers/http.js';
import { createOperator } from '../../helpers/operator.js';
import { startTestApp } from '../../helpers/test-app.js';
import { approve, discover, exchange, registerClient } from '../oauth/oauth-fixture.js';

/**
 * Generated from the route table: every admin route (path /admin/...) is refused to every
 * credential but an operator's session with MFA on. A team API key, a team owner's session, an
 * operator session of another appliance, an operator without MFA, and no credential at all each
 * (and an OAuth access token) get their documented refusal, whatever the route does. New admin routes are covered when added.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const other = await startTestApp();
t.teardown(() => other.close());

const team = await app.createTeam('Tenant', 'unlimited');
const ownerSession = await sessionInTeam(app, 'owner@example.com', team.teamId, 'owner');
const operator = await createOperator(app);
const withoutMfa = await createOperator(app, { mfa: false });
const foreignOperator = await createOperator(other);
const origin = new URL(app.url).origin;
// A real OAuth access token of the team (the MCP / third-party app credential).
const authorizationServer = await discover(app);
const client = await registerClient(authorizationServer);
const oauthToken = (
  await exchange(
    authorizationServer,
    client,
    await approve(app, authorizationServer, client, team.teamId, ['team:read']),
  )
).access_token;

const adminRoutes = apiRoutes('test').filter((route) => route.path.startsWith('/admin'));

t.test('the route table: every /admin route is operator-only, tagged admin; no other route is', async (t) => {
  t.ok(adminRoutes.length >= 20, `${adminRoutes.length} admin routes declared`);
  for (const route of apiRoutes('test')) {
    const admin = route.path.startsWith('/admin');
    t.equal(route.permission === 'operator', admin, `${route.method} ${route.path}: permission`);
    if (admin) {
      t.equal(route.tag, 'admin', `${route.operationId}: tag`);
      t.equal(route.scope, null, `${route.operationId}: no OAuth scope`);
    }
  }
});

t.test('/openapi.json lists every admin operation under the tag admin, session security', async (t) => {
  const doc = (await request(app.url, '/openapi.json')).body;
  for (const route of adminRoutes) {
    const openApiPath = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const operation = doc.paths[openApiPath]?.[route.method.toLowerCase()];
    t.ok(operation, `${route.method} ${openApiPath} is in the document`);
    t.same(operation?.tags, ['admin']);
    t.equal(operation?.['x-svc-permission'], 'operator');
    t.same(operation?.security, [{ session: [] }]);
  }
});

/** A concrete path for a route: ids random, an egress address from the documentation range. */
function pathOf(route: RouteDef): string {
  const path = route.path.replace(/:([A-Za-z0-9_]+)/g, (_whole, name: string) =>
    name === 'address' ? '192.0.2.1' : newId(),
  );
  return route.exampleQuery ? `${path}?${route.exampleQuery}` : path;
}

const call = (route: RouteDef, options: RequestOptions) =>
  request(app.url, pathOf(route), {
    method: route.method,
    ...options,
    body: route.method === 'GET' ? undefined : (route.exampleBody ?? {}),
  });
const cookie = (value: string) => ({ headers: { cookie: value, origin } });

for (const route of adminRoutes) {
  t.test(`${route.method} ${route.path}`, async (t) => {
    errorShape(t, await call(route, {}), 401, 'missing_api_key');
    errorShape(t, await call(route, { token: team.token }), 403, 'invalid_permission');
    errorShape(t, await call(route, { token: oauthToken }), 403, 'invalid_permission');
    errorShape(t, await call(route, cookie(ownerSession)), 403, 'invalid_permission');
    errorShape(t, await call(route, cookie(foreignOperator.cookie)), 401, 'invalid_api_key');
    errorShape(t, await call(route, cookie(withoutMfa.cookie)), 403, 'mfa_required');
    // A key sent beside the operator's own cookie is still a key: refused, never the cookie's rights.
    errorShape(t, await call(route, { token: team.token, ...cookie(operator.cookie) }), 403, 'invalid_permission');
    if (route.method !== 'GET') {
      // A cookie write from another site (CSRF) is refused even for the operator.
      const crossSite = await call(route, { headers: { cookie: operator.cookie, origin: 'https://evil.example' } });
      errorShape(t, crossSite, 403, 'invalid_permission');
    }
    // The operator with MFA passes the credential step (what follows may be 404 or 422 for made-up ids).
    const allowed = await call(route, cookie(operator.cookie));
    t.notOk(
      [401, 403].includes(allowed.status),
      `the operator is let through (${allowed.status} ${allowed.text.slice(0, 200)})`,
    );
  });
}
