import t from 'tap';
import { asBrowser, sessionInTeam } from '../../helpers/accounts.js';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/** GET /auth/teams: the signed-in person's teams and role in each, for the dashboard's team switcher. */
const app = await startTestApp();
t.teardown(() => app.close());
const first = await app.createTeam('First');
const second = await app.createTeam('Second');
const other = await app.createTeam('Not theirs');
const cookie = await sessionInTeam(app, 'ann@example.test', first.teamId, 'owner');
await app.runtime.services.accounts.createByOperator({
  email: 'ann@example.test',
  teamId: second.teamId,
  role: 'member',
});

t.test('every team of the person, with the role, the current one marked', async (t) => {
  const response = await asBrowser(app, '/auth/teams', cookie);
  t.equal(response.status, 200);
  t.equal(response.body.object, 'list');
  const byName = Object.fromEntries(
    response.body.data.map((m: { team: { name: string } }) => [m.team.name, m]),
  ) as Record<string, { object: string; team: { id: string }; role: string; current: boolean }>;
  t.same(Object.keys(byName).sort(), ['First', 'Second'], 'only their teams');
  t.same(byName.First, {
    object: 'team_membership',
    team: { id: first.teamId, name: 'First' },
    role: 'owner',
    current: true,
  });
  t.same(byName.Second, {
    object: 'team_membership',
    team: { id: second.teamId, name: 'Second' },
    role: 'member',
    current: false,
  });
  t.notOk(JSON.stringify(response.body).includes(other.teamId), 'another team is never named');

  const switched = await asBrowser(app, '/auth/teams/switch', cookie, {
    method: 'POST',
    body: { team_id: second.teamId },
  });
  t.equal(switched.status, 200);
  const newCookie = /mailroom_session=[^;]+/.exec(switched.headers.get('set-cookie') ?? '')![0];
  const after = await asBrowser(app, '/auth/teams', newCookie);
  const current = after.body.data.find((m: { current: boolean }) => m.current);
  t.equal(current.team.id, second.teamId, 'the switch moves the mark');
  t.equal(current.role, 'member');
});

t.test('refusals: no session, an ended session, a key', async (t) => {
  const none = await request(app.url, '/auth/teams');
  errorShape(t, none, 401, 'missing_api_key');
  const ended = await asBrowser(app, '/auth/teams', 'mailroom_session=not-a-session');
  errorShape(t, ended, 401, 'invalid_api_key');
  const key = await request(app.url, '/auth/teams', { token: first.token });
  errorShape(t, key, 403, 'invalid_permission');
});
