import t from 'tap';
import { hasScope, type Caller } from '../../core/platform/auth/caller.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * The pipeline checks each route's declared scope against the credential's scopes. Only API keys
 * exist today (no scopes: their permission decides), so this test gives a key's caller the
 * scopes an OAuth token would carry, to show the check is wired; OAuth tokens come later.
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

t.test('hasScope: null scope on the route or on the credential passes', async (t) => {
  const caller = { scopes: ['team:read'] } as unknown as Caller;
  t.ok(hasScope(caller, null));
  t.ok(hasScope(caller, 'team:read'));
  t.notOk(hasScope(caller, 'team:write'));
  t.ok(hasScope({ scopes: null } as unknown as Caller, 'team:write'));
});
