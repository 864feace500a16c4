import t from 'tap';
import { asBrowser, sessionInTeam, signup } from '../../helpers/accounts.js';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * The dashboard calls the key routes with its cookie session: the person acts in the session's
 * current team like a full_access key, except where a rule needs a team admin (PATCH /team's
 * name); writes need this appliance's Origin; a bearer header wins over the cookie.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const owner = await signup(app, 'otto@example.com', 'otto password');
const teamId = owner.response.body.current_team.id as string;
const other = await app.createTeam('Elsewhere');
const member = await sessionInTeam(app, 'mel@example.com', teamId, 'member');
const admin = await sessionInTeam(app, 'ada@example.com', teamId, 'admin');
const patchTeam = (cookie: string | null, body: unknown, headers: Record<string, string> = {}) =>
  asBrowser(app, '/team', cookie, { method: 'PATCH', body, headers });

t.test('a session reads and writes its current team through the key routes', async (t) => {
  const team = await asBrowser(app, '/team', owner.cookie);
  t.equal(team.status, 200);
  t.equal(team.body.id, teamId, 'the session’s current team');
  const members = await asBrowser(app, '/team/members', owner.cookie);
  t.equal(members.status, 200);
  t.same(members.body.data.map((m: { email: string }) => m.email).sort(), [
    'ada@example.com',
    'mel@example.com',
    'otto@example.com',
  ]);
  const key = await asBrowser(app, '/api-keys', owner.cookie, { method: 'POST', body: { name: 'From the dashboard' } });
  t.equal(key.status, 201, 'the dashboard creates keys');
  t.equal((await request(app.url, '/team', { token: key.body.token })).body.id, teamId, 'in the session’s team');
  t.equal((await asBrowser(app, '/emails', member)).status, 200, 'a plain member reads emails');
});

t.test('PATCH /team: renaming needs an owner or admin; other fields any member', async (t) => {
  t.equal((await patchTeam(owner.cookie, { name: 'Renamed by owner' })).status, 200);
  t.equal((await patchTeam(admin, { name: 'Renamed by admin' })).status, 200);
  const refused = errorShape(t, await patchTeam(member, { name: 'Renamed by member' }), 403, 'invalid_permission');
  t.match(refused.message, /admin/);
  t.equal((await asBrowser(app, '/team', owner.cookie)).body.name, 'Renamed by admin', 'the refusal changed nothing');
  const address = { line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' };
  t.equal((await patchTeam(member, { postal_address: address })).status, 200, 'a member may set the address');
});

t.test('writes need this appliance’s Origin; reads do not', async (t) => {
  for (const origin of ['https://evil.example', 'null']) {
    errorShape(t, await patchTeam(owner.cookie, { name: 'Forged' }, { origin }), 403, 'invalid_permission');
  }
  const noOrigin = await request(app.url, '/team', {
    method: 'PATCH',
    body: { name: 'No origin' },
    headers: { cookie: owner.cookie },
  });
  errorShape(t, noOrigin, 403, 'invalid_permission');
  t.equal((await request(app.url, '/team', { headers: { cookie: owner.cookie } })).status, 200);
});

t.test('a bearer header wins over the cookie; an ended session is invalid_api_key', async (t) => {
  const both = await request(app.url, '/team', { token: other.token, headers: { cookie: owner.cookie } });
  t.equal(both.body.id, other.teamId, 'the key decides when both come');
  const ending = await signup(app, 'eve@example.com', 'eve password');
  t.equal((await asBrowser(app, '/auth/logout', ending.cookie, { method: 'POST', body: {} })).status, 200);
  errorShape(t, await asBrowser(app, '/team', ending.cookie), 401, 'invalid_api_key');
  errorShape(t, await asBrowser(app, '/team', 'mailroom_session=made-up'), 401, 'invalid_api_key');
  errorShape(t, await request(app.url, '/team'), 401, 'missing_api_key');
});

t.test('a session without a current team, or of a suspended team, is refused', async (t) => {
  const lone = await signup(app, 'lone@example.com', 'lone password');
  const loneTeam = lone.response.body.current_team.id as string;
  await app.runtime.db.knex('team_members').where({ team_id: loneTeam }).delete();
  errorShape(t, await asBrowser(app, '/team', lone.cookie), 403, 'invalid_permission');
  const held = await signup(app, 'held@example.com', 'held password');
  await app.runtime.db
    .knex('teams')
    .where({ id: held.response.body.current_team.id })
    .update({ risk_state: 'suspended' });
  errorShape(t, await asBrowser(app, '/team', held.cookie), 403, 'suspended_api_key');
});

t.test('session routes stay cookie-only and key-only routes need no change for keys', async (t) => {
  errorShape(t, await request(app.url, '/auth/session', { token: other.token }), 403, 'invalid_permission');
  t.equal((await request(app.url, '/team', { token: other.token })).status, 200);
});
