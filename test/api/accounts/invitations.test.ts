import t from 'tap';
import { asBrowser, captureAccountLinks, login, sessionCookieOf, signup } from '../../helpers/accounts.js';
import { movableClock } from '../../helpers/clock.js';
import { errorShape, request } from '../../helpers/http.js';
import { createOperator } from '../../helpers/operator.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { newId } from '../../../lib/ids.js';

/** Team invitations: sent by owners and admins, accepted through the mailed link. */
const INVITATION_KEYS = [
  'created_at',
  'email',
  'expires_at',
  'id',
  'invited_by',
  'object',
  'role',
  'status',
  'team_id',
];
const DAY = 86_400_000;

/** A team with an API key and an owner signed in through the dashboard. */
async function teamWithOwner(app: TestApp, name: string, email: string) {
  const team = await app.createTeam(name);
  const password = `${email} password`;
  const { user } = await app.runtime.services.accounts.createByOperator({
    email,
    teamId: team.teamId,
    role: 'owner',
    password,
  });
  return { ...team, userId: user.id, cookie: sessionCookieOf(await login(app, email, password)) };
}

/** The dashboard's calls, bound to one app; tokens come from the logged links. */
function invitationClient(app: TestApp) {
  const mail = captureAccountLinks(app);
  return {
    mail,
    invite: (cookie: string | null, body: unknown, headers: Record<string, string> = {}) =>
      asBrowser(app, '/auth/invitations', cookie, { method: 'POST', body, headers }),
    list: (cookie: string) => asBrowser(app, '/auth/invitations', cookie),
    revoke: (cookie: string, id: string) => asBrowser(app, `/auth/invitations/${id}`, cookie, { method: 'DELETE' }),
    preview: (token: string) => request(app.url, `/auth/invitations/preview?token=${encodeURIComponent(token)}`),
    accept: (body: Record<string, unknown>, cookie: string | null = null, headers: Record<string, string> = {}) =>
      asBrowser(app, '/auth/invitations/accept', cookie, { method: 'POST', body, headers }),
    /** The members of a team as its full_access key reads them. */
    members: async (token: string) =>
      (await request(app.url, '/team/members', { token })).body.data as Array<{ email: string; role: string }>,
  };
}

const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const api = invitationClient(app);
t.teardown(api.mail.restore);
const acme = await teamWithOwner(app, 'Acme', 'olivia@example.com');

/** Invites and answers the mailed token. */
async function invited(email: string, role?: 'admin' | 'member', cookie = acme.cookie) {
  const response = await api.invite(cookie, { email, ...(role ? { role } : {}) });
  if (response.status !== 201) throw new Error(`invite failed: ${response.status} ${response.text}`);
  return { invitation: response.body, token: api.mail.last('invitation', email.toLowerCase()) };
}

t.test('an owner invites: 201 with the invitation, the token only in the mail', async (t) => {
  const before = clock.now().getTime();
  const response = await api.invite(acme.cookie, { email: 'Nina@Example.com' });
  t.equal(response.status, 201);
  t.same(Object.keys(response.body).sort(), INVITATION_KEYS);
  t.match(response.body, {
    object: 'invitation',
    team_id: acme.teamId,
    email: 'nina@example.com',
    role: 'member',
    status: 'pending',
    invited_by: acme.userId,
  });
  const lifetime = Date.parse(response.body.expires_at) - Date.parse(response.body.created_at);
  t.equal(lifetime, 7 * DAY, 'valid 7 days');
  t.ok(Date.parse(response.body.created_at) >= before - 1000);
  const link = api.mail.links.filter((l) => l.kind === 'invitation').at(-1)!;
  t.equal(link.to, 'nina@example.com');
  t.match(link.link, new RegExp(`^${app.url}/dashboard/invitations/accept\\?token=`));
  t.notOk(response.text.includes(link.token), 'the token is not in the answer');
  const [stored] = await app.runtime.db.knex('team_invitations').where({ id: response.body.id });
  t.not(stored.token_hash, link.token, 'stored hashed');
});

t.test('the preview shows the team, address and role without a credential', async (t) => {
  const { invitation, token } = await invited('pia@example.com', 'admin');
  const response = await api.preview(token);
  t.equal(response.status, 200);
  t.same(response.body, {
    object: 'invitation',
    team: { id: acme.teamId, name: 'Acme' },
    email: 'pia@example.com',
    role: 'admin',
    status: 'pending',
    expires_at: invitation.expires_at,
  });
  errorShape(t, await api.preview('not-a-token'), 404, 'not_found');
  errorShape(t, await request(app.url, '/auth/invitations/preview'), 422, 'missing_required_parameter');
});

t.test('a new person accepts: account, membership with the role, and a session in the team', async (t) => {
  const { token } = await invited('Ben@example.com', 'admin');
  errorShape(t, await api.accept({ token }), 422, 'missing_required_field');
  errorShape(t, await api.accept({ token, password: 'short' }), 400, 'validation_error');
  const accepted = await api.accept({ token, password: 'ben password', name: 'Ben' });
  t.equal(accepted.status, 201);
  t.match(accepted.body, { object: 'session', user: { email: 'ben@example.com', name: 'Ben' } });
  t.equal(accepted.body.current_team.id, acme.teamId);
  t.type(accepted.body.user.email_verified_at, 'string', 'the link proved the mailbox');
  const cookie = sessionCookieOf(accepted);
  const session = await asBrowser(app, '/auth/session', cookie);
  t.equal(session.body.current_team.id, acme.teamId);
  t.match(
    (await api.members(acme.token)).find((m) => m.email === 'ben@example.com'),
    { role: 'admin' },
  );
  t.equal(api.mail.links.filter((l) => l.to === 'ben@example.com' && l.kind === 'verify_email').length, 0);

  t.test('the token works once', async (t) => {
    errorShape(t, await api.accept({ token, password: 'ben password' }), 404, 'not_found');
    errorShape(t, await api.preview(token), 404, 'not_found');
  });
  t.test('an admin invites too; a plain member may not manage invitations', async (t) => {
    const { token: memberToken } = await invited('mo@example.com', 'member', cookie);
    const mo = sessionCookieOf(await api.accept({ token: memberToken, password: 'mo password' }));
    errorShape(t, await api.invite(mo, { email: 'x@example.com' }), 403, 'invalid_permission');
    errorShape(t, await api.list(mo), 403, 'invalid_permission');
    const listed = (await api.list(acme.cookie)).body.data.find((i: { email: string }) => i.email === 'mo@example.com');
    errorShape(t, await api.revoke(mo, listed.id), 403, 'invalid_permission');
  });
});

t.test('a second invitation to an address supersedes the pending one', async (t) => {
  const first = await invited('dup@example.com');
  const second = await invited('dup@example.com', 'admin');
  errorShape(t, await api.accept({ token: first.token, password: 'dup password' }), 404, 'not_found');
  const list = await api.list(acme.cookie);
  t.equal(list.status, 200);
  t.match(list.body, { object: 'list', has_more: false });
  const dup = list.body.data.filter((i: { email: string }) => i.email === 'dup@example.com');
  t.same(
    dup.map((i: { id: string; status: string }) => [i.id, i.status]),
    [
      [second.invitation.id, 'pending'],
      [first.invitation.id, 'revoked'],
    ],
    'newest first',
  );
  t.same(Object.keys(dup[0]).sort(), INVITATION_KEYS);
});

t.test('revoked: the link stops working', async (t) => {
  const { invitation, token } = await invited('rex@example.com');
  const revoked = await api.revoke(acme.cookie, invitation.id);
  t.equal(revoked.status, 200);
  t.same(revoked.body, { object: 'invitation', id: invitation.id, revoked: true });
  t.equal((await api.revoke(acme.cookie, invitation.id)).status, 200, 'revoking twice is harmless');
  errorShape(t, await api.accept({ token, password: 'rex password' }), 404, 'not_found');
  errorShape(t, await api.preview(token), 404, 'not_found');
  errorShape(t, await api.revoke(acme.cookie, newId()), 404, 'not_found');
  errorShape(t, await api.revoke(acme.cookie, 'nope'), 422, 'invalid_parameter');
});

t.test('an accepted invitation cannot be revoked', async (t) => {
  const { invitation, token } = await invited('acc@example.com');
  t.equal((await api.accept({ token, password: 'acc password' })).status, 201);
  errorShape(t, await api.revoke(acme.cookie, invitation.id), 422, 'validation_error');
  const listed = (await api.list(acme.cookie)).body.data.find((i: { id: string }) => i.id === invitation.id);
  t.equal(listed.status, 'accepted');
});

t.test('a signed-in user accepts an invitation to their address and switches to the team', async (t) => {
  const sam = await signup(app, 'sam@example.com', 'sam password');
  const own = sam.response.body.current_team.id;
  const { token } = await invited('sam@example.com');
  const accepted = await api.accept({ token }, sam.cookie);
  t.equal(accepted.status, 200);
  t.equal(accepted.headers.get('set-cookie'), null, 'the same session');
  t.equal(accepted.body.current_team.id, acme.teamId);
  t.equal((await asBrowser(app, '/auth/session', sam.cookie)).body.current_team.id, acme.teamId);
  t.match(
    (await api.members(acme.token)).find((m) => m.email === 'sam@example.com'),
    { role: 'member' },
  );
  t.equal(
    (await asBrowser(app, '/auth/teams/switch', sam.cookie, { method: 'POST', body: { team_id: own } })).status,
    200,
  );

  t.test('an address that is already a member is refused', async (t) => {
    const refused = errorShape(t, await api.invite(acme.cookie, { email: 'SAM@example.com' }), 422, 'validation_error');
    t.match(refused.message, /already a member/);
  });
});

t.test('an operator cannot join a team through an invitation', async (t) => {
  const operator = await createOperator(app, { email: 'ops@example.com' });
  const { token } = await invited('ops@example.com');
  const refused = await api.accept({ token }, operator.cookie, { origin: new URL(app.url).origin });
  errorShape(t, refused, 403, 'invalid_permission');
  t.match(refused.body.message, /operator account belongs to no team/);
  t.notOk(
    (await api.members(acme.token)).some((m) => m.email === 'ops@example.com'),
    'the operator is not a member',
  );
  t.equal((await api.preview(token)).status, 200, 'the invitation is still usable by its addressee otherwise');
});

t.test('refusals when accepting', async (t) => {
  const una = await signup(app, 'una@example.com', 'una password');
  const { token } = await invited('pat@example.com');
  const mismatch = errorShape(t, await api.accept({ token }, una.cookie), 403, 'invalid_permission');
  t.match(mismatch.message, /another e-mail address/);
  t.equal((await api.preview(token)).status, 200, 'a refusal leaves the invitation usable');
  const forUna = await invited('una@example.com');
  const signInFirst = errorShape(
    t,
    await api.accept({ token: forUna.token, password: 'hijack pw' }),
    401,
    'missing_api_key',
  );
  t.match(signInFirst.message, /sign in/);
  errorShape(t, await api.accept({ token, surprise: 1 }), 400, 'validation_error');
  errorShape(t, await api.accept({ password: 'pat password' }), 422, 'missing_required_field');
  errorShape(t, await api.accept({ token }, null, { origin: 'https://evil.example' }), 403, 'invalid_permission');
  t.equal((await api.preview(forUna.token)).status, 200, 'still usable after the refusals');
});

t.test('input rules and credentials of the management routes', async (t) => {
  errorShape(t, await api.invite(acme.cookie, { email: 'a@example.com', extra: true }), 400, 'validation_error');
  errorShape(t, await api.invite(acme.cookie, {}), 422, 'missing_required_field');
  const owner = await api.invite(acme.cookie, { email: 'a@example.com', role: 'owner' });
  t.match(errorShape(t, owner, 400, 'validation_error').message, /role/, 'owner is not an invitation role');
  errorShape(t, await api.invite(null, { email: 'a@example.com' }), 401, 'missing_api_key');
  const key = { token: acme.token };
  const viaKey = { ...key, method: 'POST', body: { email: 'a@example.com' } };
  errorShape(t, await request(app.url, '/auth/invitations', viaKey), 403, 'invalid_permission');
  errorShape(t, await request(app.url, '/auth/invitations', key), 403, 'invalid_permission');
  errorShape(
    t,
    await request(app.url, `/auth/invitations/${newId()}`, { ...key, method: 'DELETE' }),
    403,
    'invalid_permission',
  );
  errorShape(
    t,
    await api.invite(acme.cookie, { email: 'a@example.com' }, { origin: 'https://evil.example' }),
    403,
    'invalid_permission',
  );
});

t.test("another team's invitation is not found", async (t) => {
  const globex = await teamWithOwner(app, 'Globex', 'gus@example.com');
  const { invitation } = await invited('gil@example.com', 'member', globex.cookie);
  const foreign = await api.revoke(acme.cookie, invitation.id);
  errorShape(t, foreign, 404, 'not_found');
  t.equal(foreign.text, (await api.revoke(acme.cookie, newId())).text, 'the same answer as a random id');
  const acmeList = (await api.list(acme.cookie)).body.data as Array<{ id: string; team_id: string }>;
  t.notOk(
    acmeList.some((i) => i.id === invitation.id),
    'not listed either',
  );
  t.ok(acmeList.every((i) => i.team_id === acme.teamId));
  t.equal((await api.preview(api.mail.last('invitation', 'gil@example.com'))).status, 200, 'left alone');
});

t.test('a double submit makes one member', async (t) => {
  const { token } = await invited('twice@example.com');
  const body = { token, password: 'twice password' };
  const answers = await Promise.all([api.accept(body), api.accept(body)]);
  const statuses = answers.map((a) => a.status).sort();
  t.equal(statuses[0], 201);
  t.ok([401, 404].includes(statuses[1]!), `the other is refused (${statuses[1]})`);
  const rows = await app.runtime.db.knex('team_members').where({ team_id: acme.teamId, email: 'twice@example.com' });
  t.equal(rows.length, 1);
});

// Last: moving the clock ends the sessions above (7 idle days).
t.test('after 7 days the invitation expires', async (t) => {
  const { invitation, token } = await invited('late@example.com');
  clock.advanceTo(Date.parse(invitation.expires_at) + 1000);
  errorShape(t, await api.preview(token), 404, 'not_found');
  errorShape(t, await api.accept({ token, password: 'late password' }), 404, 'not_found');
  const cookie = sessionCookieOf(await login(app, 'olivia@example.com', 'olivia@example.com password'));
  const listed = (await api.list(cookie)).body.data.find((i: { id: string }) => i.id === invitation.id);
  t.equal(listed.status, 'expired');
});

t.test('signup policy invite: only an invited address, which joins the inviting team once verified', async (t) => {
  const invite = await startTestApp({ config: { accounts: { signup: 'invite' } } });
  t.teardown(() => invite.close());
  const client = invitationClient(invite);
  t.teardown(client.mail.restore);
  const team = await teamWithOwner(invite, 'Initech', 'ivan@example.com');
  const sent = await client.invite(team.cookie, { email: 'ivy@example.com', role: 'admin' });
  const refused = errorShape(
    t,
    await asBrowser(invite, '/auth/signup', null, {
      method: 'POST',
      body: { email: 'eve@example.com', password: 'eve password' },
    }),
    403,
    'validation_error',
  );
  t.match(refused.message, /invitation/);
  const { response, cookie } = await signup(invite, 'IVY@example.com', 'ivy password');
  t.equal(response.body.current_team, null, 'no team yet: typing an invited address proves no mailbox');
  t.equal(response.body.user.email_verified_at, null);
  t.notOk(
    (await client.members(team.token)).find((m) => m.email === 'ivy@example.com'),
    'not a member before verifying (anyone could have typed the address)',
  );
  let listed = (await client.list(team.cookie)).body.data.find((i: { id: string }) => i.id === sent.body.id);
  t.equal(listed.status, 'pending', 'the invitation waits for the verification');

  const verified = await asBrowser(invite, '/auth/verify-email', null, {
    method: 'POST',
    body: { token: client.mail.last('verify_email', 'ivy@example.com') },
  });
  t.equal(verified.status, 200);
  t.match(
    (await client.members(team.token)).find((m) => m.email === 'ivy@example.com'),
    { role: 'admin' },
    'verified: joined with the invited role',
  );
  const session = await asBrowser(invite, '/auth/session', cookie);
  t.equal(session.body.current_team.id, team.teamId, 'her session now acts in the team');
  listed = (await client.list(team.cookie)).body.data.find((i: { id: string }) => i.id === sent.body.id);
  t.equal(listed.status, 'accepted', 'the invitation is used');
  errorShape(t, await client.accept({ token: client.mail.last('invitation', 'ivy@example.com') }), 404, 'not_found');
  t.equal((await invite.runtime.db.knex('teams').count({ n: '*' }))[0]!.n, 1, 'no new team');
});

t.test('signup policy closed: signup refused, an invitation still lets people in', async (t) => {
  const closed = await startTestApp({ env: { MAILROOM_ACCOUNTS_SIGNUP: 'closed' } });
  t.teardown(() => closed.close());
  const client = invitationClient(closed);
  t.teardown(client.mail.restore);
  const team = await teamWithOwner(closed, 'Hooli', 'hank@example.com');
  await client.invite(team.cookie, { email: 'cleo@example.com' });
  const body = { email: 'cleo@example.com', password: 'cleo password' };
  const refused = errorShape(
    t,
    await asBrowser(closed, '/auth/signup', null, { method: 'POST', body }),
    403,
    'validation_error',
  );
  t.match(refused.message, /closed/);
  const accepted = await client.accept({
    token: client.mail.last('invitation', 'cleo@example.com'),
    password: 'cleo password',
  });
  t.equal(accepted.status, 201);
  t.equal(accepted.body.current_team.id, team.teamId);
  t.equal((await login(closed, 'cleo@example.com', 'cleo password')).status, 200, 'the account works');
});
