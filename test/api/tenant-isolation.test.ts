import t from 'tap';
import { apiRoutes } from '../../api/routes/index.js';
import { newId } from '../../lib/ids.js';
import { sessionInTeam } from '../helpers/accounts.js';
import { request, type RequestOptions } from '../helpers/http.js';
import { resourceFactories } from '../helpers/resource-factories.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * Generated from the route table: every route that takes an id is called with another team's
 * id and must answer exactly what a random id gets. New routes are covered when they are added.
 * Key routes are called with the attacker's key and again with an attacker's dashboard session
 * (the dashboard calls them with its cookie); session routes with the session only.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const attacker = await app.createTeam('Attacker', 'unlimited');
const victim = await app.createTeam('Victim', 'unlimited');
const origin = new URL(app.url).origin;
const attackerSession = await sessionInTeam(app, 'mallory@example.com', attacker.teamId, 'owner');
const victimSession = await sessionInTeam(app, 'victor@example.com', victim.teamId, 'owner');
/** The credential of a call: a bearer key, or a cookie with this appliance's Origin (a browser's). */
const as = (credential: { token: string } | { cookie: string }): RequestOptions =>
  'token' in credential ? { token: credential.token } : { headers: { cookie: credential.cookie, origin } };

const routes = apiRoutes('test').filter((route) => route.path.includes('/:'));
t.ok(routes.length >= 3, 'routes with ids exist');

for (const route of routes) {
  t.test(`${route.method} ${route.path}`, async (t) => {
    if (route.permission === 'none') {
      t.pass('public route: nothing team-owned behind it');
      return;
    }
    if (route.permission === 'operator') {
      // The admin API reaches every team by design; its own test refuses every team credential.
      t.pass('operator route: see test/api/admin/admin-isolation.test.ts');
      return;
    }
    if (route.permission === null) {
      // No key reaches it (the OAuth client management routes take their own registration token).
      t.pass('not reachable with a key: nothing of a key’s team behind it');
      return;
    }
    t.ok(route.isolation, 'the route declares which path parameter names a team-owned resource');
    if (!route.isolation) return;
    const factory = resourceFactories[route.isolation.resource];
    t.ok(factory, `a factory exists for ${route.isolation.resource}`);
    if (!factory) return;
    const foreignId = await factory(app, victim);
    // Other parameters (a sub-resource id) get a random id: the 404 must come from the parent.
    const fixedOthers = route.path.replace(/:([A-Za-z0-9_]+)/g, (whole, name: string) =>
      name === route.isolation!.param ? whole : newId(),
    );
    const query = route.exampleQuery ? `?${route.exampleQuery}` : '';
    const sessionOnly = route.permission === 'session';
    const attackers = sessionOnly
      ? [{ cookie: attackerSession }]
      : [{ token: attacker.token }, { cookie: attackerSession }];
    for (const credential of attackers) {
      const by = 'token' in credential ? 'key' : 'session';
      const call = (id: string) =>
        request(app.url, `${fixedOthers.replace(`:${route.isolation!.param}`, id)}${query}`, {
          method: route.method,
          ...as(credential),
          body: route.body ? (route.exampleBody ?? {}) : undefined,
        });
      const foreign = await call(foreignId);
      const random = await call(newId());
      t.equal(foreign.status, 404, `${by}: another team’s id is 404`);
      t.equal(foreign.text, random.text, `${by}: byte-identical to a random id`);
      t.equal(foreign.body.name, 'not_found', by);
    }
    // The victim still reaches its own resource: the 404 was isolation, not a broken route.
    if ((route.path.match(/:/g) ?? []).length > 1) return;
    const own = await request(app.url, `${route.path.replace(`:${route.isolation.param}`, foreignId)}${query}`, {
      method: route.method === 'DELETE' ? 'GET' : route.method,
      ...as(sessionOnly ? { cookie: victimSession } : { token: victim.token }),
      body: route.method === 'DELETE' ? undefined : route.body ? (route.exampleBody ?? {}) : undefined,
    });
    t.not(own.status, 404, 'the owner does not get 404');
  });
}
