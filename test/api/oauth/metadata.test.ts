import * as oauth from 'oauth4webapi';
import t from 'tap';
import { apiRoutes } from '../../../api/routes/index.js';
import { SCOPE_CATALOGUE } from '../../../core/oauth/oauth.scopes.js';
import { request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { insecure } from './oauth-fixture.js';

/** RFC 8414 and RFC 9728 documents, read by a real client; the scope catalogue matches the route table. */
const app = await startTestApp();
t.teardown(() => app.close());

t.test('authorization server metadata (RFC 8414)', async (t) => {
  const issuer = new URL(app.url);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }),
  );
  t.match(as, {
    issuer: app.url,
    authorization_endpoint: `${app.url}/oauth/authorize`,
    token_endpoint: `${app.url}/oauth/token`,
    registration_endpoint: `${app.url}/oauth/register`,
    revocation_endpoint: `${app.url}/oauth/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
  });
  t.same(as.scopes_supported, [...SCOPE_CATALOGUE]);
  const prefixed = await request(app.url, '/api/v1/.well-known/oauth-authorization-server');
  t.same(prefixed.body, (await request(app.url, '/.well-known/oauth-authorization-server')).body, 'both bases');
});

t.test('protected resource metadata (RFC 9728)', async (t) => {
  const resource = new URL(app.url);
  const rs = await oauth.processResourceDiscoveryResponse(
    resource,
    await oauth.resourceDiscoveryRequest(resource, insecure),
  );
  t.match(rs, { resource: app.url, authorization_servers: [app.url], bearer_methods_supported: ['header'] });
  t.same(rs.scopes_supported, [...SCOPE_CATALOGUE]);
});

t.test('the scope catalogue holds every scope the route table declares, and the spec’s', async (t) => {
  const declared = new Set(apiRoutes('test').flatMap((route) => (route.scope ? [route.scope] : [])));
  for (const scope of declared) t.ok(SCOPE_CATALOGUE.includes(scope as never), `${scope} is in the catalogue`);
  const spec = ['emails:send', 'emails:read', 'broadcasts:read', 'broadcasts:write', 'billing:read'];
  for (const scope of [...spec, 'team:read', 'team:write', 'ai:use'])
    t.ok(SCOPE_CATALOGUE.includes(scope as never), `${scope} (named by the spec)`);
  const extra = SCOPE_CATALOGUE.filter((scope) => !declared.has(scope) && scope !== 'ai:use');
  t.same(extra, [], 'nothing in the catalogue that no route uses, except the spec’s ai:use');
});
