import t from 'tap';
import { asBrowser, signup } from '../../helpers/accounts.js';
import { errorShape } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { signupPolicy } from '../../../core/accounts/accounts.services.js';
import { loadConfig } from '../../../lib/config/load-config.js';

const attempt = (app: Awaited<ReturnType<typeof startTestApp>>) =>
  asBrowser(app, '/auth/signup', null, { method: 'POST', body: { email: 'new@example.com', password: 'long enough' } });

t.test('closed: signup is refused with 403 and a clear message', async (t) => {
  const app = await startTestApp({ env: { MAILROOM_ACCOUNTS_SIGNUP: 'closed' } });
  t.teardown(() => app.close());
  const refused = errorShape(t, await attempt(app), 403, 'validation_error');
  t.match(refused.message, /closed/);
  t.equal((await app.runtime.db.knex('users').count({ n: '*' }))[0]!.n, 0, 'nobody was created');
});

t.test('invite: refused like closed until invitations exist', async (t) => {
  const app = await startTestApp({ config: { accounts: { signup: 'invite' } } });
  t.teardown(() => app.close());
  t.match(errorShape(t, await attempt(app), 403, 'validation_error').message, /invitation/);
});

t.test('open: anyone signs up and owns a new team on the default plan', async (t) => {
  const app = await startTestApp({ config: { accounts: { signup: 'open' } } });
  t.teardown(() => app.close());
  const { response } = await signup(app, 'open@example.com');
  const team = await app.runtime.services.teams.get(response.body.current_team.id);
  t.equal(team.plan.code, 'free');
  t.equal(team.name, "open's team", 'named after the address when no name is given');
});

t.test('the default policy: closed in production, open elsewhere', async (t) => {
  const base = { MAILROOM_CONFIG: '', MAILROOM_MASTER_KEY: 'k'.repeat(40) };
  t.equal(signupPolicy(loadConfig({ ...base, MAILROOM_ENV: 'production' })), 'closed');
  t.equal(signupPolicy(loadConfig({ ...base, MAILROOM_ENV: 'development' })), 'open');
  t.equal(signupPolicy(loadConfig({ ...base, MAILROOM_ENV: 'production', MAILROOM_ACCOUNTS_SIGNUP: 'open' })), 'open');
});
