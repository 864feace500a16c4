import t from 'tap';
import { asBrowser, sessionCookieOf, signup } from '../../helpers/accounts.js';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { newId } from '../../../lib/ids.js';

/** POST /auth/teams/switch: the session moves between the user's teams, and only those. */
const app = await startTestApp();
t.teardown(() => app.close());
const { cookie: first, response } = await signup(app, 'tess@example.com', 'tess password', 'Tess');
/** Each switch rotates the cookie (another team is another role): the browser keeps the new one. */
let cookie = first;
const own = response.body.current_team.id as string;
const other = await app.createTeam('Second team');
const stranger = await app.createTeam('Not hers');
await app.runtime.services.accounts.createByOperator({
  email: 'tess@example.com',
  teamId: other.teamId,
  role: 'admin',
});
async function switchTo(teamId: unknown, headers: Record<string, string> = {}) {
  const answer = await asBrowser(app, '/auth/teams/switch', cookie, {
    method: 'POST',
    body: { team_id: teamId },
    headers,
  });
  if (answer.status === 200) cookie = sessionCookieOf(answer);
  return answer;
}

t.test('switching to another team of the user', async (t) => {
  const switched = await switchTo(other.teamId);
  t.equal(switched.status, 200);
  t.match(switched.body, { object: 'session', user: { email: 'tess@example.com' } });
  t.same(Object.keys(switched.body.current_team).sort(), ['created_at', 'id', 'name', 'object', 'risk_state', 'slug']);
  t.match(switched.body.current_team, { id: other.teamId, name: 'Second team' });
  t.equal((await asBrowser(app, '/auth/session', cookie)).body.current_team.id, other.teamId, 'kept by the session');
  errorShape(t, await asBrowser(app, '/auth/session', first), 401, 'invalid_api_key');
  t.equal((await switchTo(own.toUpperCase())).body.current_team.id, own, 'ids are case-insensitive');
});

t.test('refusals: a team of someone else or none at all is 404; a malformed id 400', async (t) => {
  const foreign = await switchTo(stranger.teamId);
  const missing = await switchTo(newId());
  errorShape(t, foreign, 404, 'not_found');
  t.equal(foreign.text, missing.text, 'the same answer as for a missing team');
  errorShape(t, await switchTo('nope'), 400, 'validation_error');
  errorShape(t, await switchTo(other.teamId, { origin: 'https://evil.example' }), 403, 'invalid_permission');
  errorShape(
    t,
    await request(app.url, '/auth/teams/switch', { method: 'POST', body: { team_id: own }, token: other.token }),
    403,
    'invalid_permission',
  );
});

t.test('a team the user was removed from reads as no current team', async (t) => {
  await switchTo(other.teamId);
  await app.runtime.db.knex('team_members').where({ team_id: other.teamId }).delete();
  const session = await asBrowser(app, '/auth/session', cookie);
  t.equal(session.status, 200);
  t.equal(session.body.current_team, null);
  errorShape(t, await switchTo(other.teamId), 404, 'not_found');
});
