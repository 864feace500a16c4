import t from 'tap';
import { hasScope, type Caller } from '../../core/platform/auth/caller.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * The pipeline checks each route's declared scope against the credential's scopes. This test
 * gives a key's caller the scopes an OAuth token would carry, to show the check is wired; real
 * OAuth tokens are tested end to end in test/api/oauth/.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const { token } = await app.createTeam('Scopes');
const { apiKeys } = app.runtime.services;
const authenticate = apiKeys.authenticate.bind(apiKeys);
let scopes: string[] | null = null;
apiKeys.authenticate = async (bearer: string): Promise<Caller> => ({ ...(await authenticate(bearer)), scopes });
t.teardown(() => void (apiKeys.authenticate = authenticate));

t.test('an API key (no scopes) reaches what its permission allows', async (t) => {
  scopes = null;
  t.equal((await request(app.url, '/emails', { token })).status, 200);
  t.equal((await request(app.url, '/team', { token })).status, 200);
});

t.test('a credential with scopes reaches only routes whose scope it holds', async (t) => {
  scopes = ['emails:read'];
  t.equal((await request(app.url, '/emails', { token })).status, 200, 'GET /emails needs emails:read');
  const refused = errorShape(
    t,
    await request(app.url, '/emails', {
      method: 'POST',
      token,
      body: { from: 'a@b.test', to: 'c@d.test', subject: 's', text: 't' },
    }),
    403,
    'invalid_permission',
  );
  t.match(refused.message, /emails:send/, 'the refusal names the missing scope');
  errorShape(t, await request(app.url, '/team', { token }), 403, 'invalid_permission');
});

t.test('a credential with scopes never reaches a route without a scope', async (t) => {
  scopes = ['team:read', 'team:write', 'emails:read', 'emails:send', 'billing:read'];
  errorShape(t, await request(app.url, '/team/members', { token }), 403, 'invalid_permission');
  errorShape(t, await request(app.url, '/api-keys', { token }), 403, 'invalid_permission');
  errorShape(t, await request(app.url, '/oauth/grants', { token }), 403, 'invalid_permission');
  t.equal((await request(app.url, '/team', { token })).status, 200);
});

t.test('hasScope: a key (no scopes) passes; a token needs the route to name one of its scopes', async (t) => {
  const caller = { scopes: ['team:read'] } as unknown as Caller;
  t.notOk(hasScope(caller, null), 'a route without a scope is for keys only');
  t.ok(hasScope(caller, 'team:read'));
  t.notOk(hasScope(caller, 'team:write'));
  t.ok(hasScope({ scopes: null } as unknown as Caller, 'team:write'));
});
