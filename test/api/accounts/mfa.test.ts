import { Secret, TOTP } from 'otpauth';
import t from 'tap';
import { asBrowser, login, sessionCookieOf, signup } from '../../helpers/accounts.js';
import { movableClock } from '../../helpers/clock.js';
import { errorShape } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/** TOTP second factor: enrol, confirm, the login challenge, recovery codes, disabling. */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const post = (path: string, body: unknown, cookie: string | null = null) =>
  asBrowser(app, path, cookie, { method: 'POST', body });
const codeFor = (secret: string) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: clock.now().getTime() });
/** The next 30-second step: a code works once per step. */
const nextStep = () => clock.advanceTo(clock.now().getTime() + 30_000);

async function enrolled(email: string) {
  const { cookie, user } = await signup(app, email, 'mfa password');
  const enrol = await post('/auth/mfa/enrol', {}, cookie);
  const confirmed = await post('/auth/mfa/confirm', { code: codeFor(enrol.body.secret) }, cookie);
  if (confirmed.status !== 200) throw new Error(confirmed.text);
  return {
    cookie: sessionCookieOf(confirmed),
    user,
    secret: enrol.body.secret as string,
    codes: confirmed.body.recovery_codes as string[],
  };
}

t.test('enrolment: status, secret and URI, a first code turns MFA on with ten recovery codes', async (t) => {
  const { cookie, user } = await signup(app, 'mona@example.com', 'mona password');
  const initial = await asBrowser(app, '/auth/mfa', cookie);
  t.same(initial.body, {
    object: 'mfa',
    enabled: false,
    enabled_at: null,
    enrolling: false,
    recovery_codes_remaining: 0,
    has_password: true,
  });
  const enrol = await post('/auth/mfa/enrol', {}, cookie);
  t.equal(enrol.status, 200);
  t.match(enrol.body, { object: 'mfa_enrolment', secret: /^[A-Z2-7]{32}$/ });
  t.match(enrol.body.otpauth_uri, /^otpauth:\/\/totp\/Mailroom:mona%40example\.com\?.*secret=/);
  t.match((await asBrowser(app, '/auth/mfa', cookie)).body, { enabled: false, enrolling: true });
  const stored = await app.runtime.db.knex('user_mfa').where({ user_id: user.id }).first();
  t.notMatch(stored.secret_sealed, enrol.body.secret, 'the secret is sealed at rest');

  errorShape(t, await post('/auth/mfa/confirm', { code: '000000' }, cookie), 422, 'validation_error');
  errorShape(t, await post('/auth/mfa/confirm', { code: 'abc' }, cookie), 400, 'validation_error');
  const confirmed = await post('/auth/mfa/confirm', { code: codeFor(enrol.body.secret) }, cookie);
  t.equal(confirmed.status, 200);
  t.match(confirmed.body, {
    object: 'mfa',
    enabled: true,
    enabled_at: String,
    enrolling: false,
    recovery_codes_remaining: 10,
  });
  t.equal(new Set(confirmed.body.recovery_codes).size, 10);
  t.ok(confirmed.body.recovery_codes.every((c: string) => /^[a-z0-9]{5}-[a-z0-9]{5}$/.test(c)));
  const rotated = sessionCookieOf(confirmed);
  t.not(rotated, cookie, 'turning MFA on rotates the session cookie');
  errorShape(t, await asBrowser(app, '/auth/mfa', cookie), 401, 'invalid_api_key');
  t.notOk('recovery_codes' in (await asBrowser(app, '/auth/mfa', rotated)).body, 'shown once');
  const member = await app.runtime.db.knex('team_members').where({ user_id: user.id }).first();
  t.equal(Boolean(member.mfa_enabled), true, 'the membership records MFA use');
  errorShape(t, await post('/auth/mfa/enrol', {}, rotated), 422, 'validation_error');
  errorShape(t, await asBrowser(app, '/auth/mfa', null), 401, 'missing_api_key');
});

t.test('login with MFA on answers a challenge; a code (once) or a recovery code (once) signs in', async (t) => {
  const { secret, codes } = await enrolled('nina@example.com');
  const challenge = await login(app, 'nina@example.com', 'mfa password');
  t.equal(challenge.status, 200);
  t.match(challenge.body, { object: 'mfa_challenge', challenge_token: String, expires_at: String });
  t.same(Object.keys(challenge.body).sort(), ['challenge_token', 'expires_at', 'object']);
  t.notOk(challenge.headers.get('set-cookie'), 'no session before the second factor');
  const token = challenge.body.challenge_token;

  const replay = await post('/auth/mfa/verify', { challenge_token: token, code: codeFor(secret) });
  errorShape(t, replay, 422, 'validation_error');
  t.equal(replay.body.errors[0].path, 'code', 'the confirmation step’s code does not work again');
  nextStep();
  const ok = await post('/auth/mfa/verify', { challenge_token: token, code: codeFor(secret) });
  t.equal(ok.status, 200);
  t.match(ok.body, { object: 'session', user: { email: 'nina@example.com' } });
  const cookie = sessionCookieOf(ok);
  t.equal((await asBrowser(app, '/auth/session', cookie)).status, 200);
  nextStep();
  errorShape(
    t,
    await post('/auth/mfa/verify', { challenge_token: token, code: codeFor(secret) }),
    422,
    'validation_error',
  );

  const second = (await login(app, 'nina@example.com', 'mfa password')).body.challenge_token;
  const byRecovery = await post('/auth/mfa/verify', {
    challenge_token: second,
    recovery_code: codes[0]!.toUpperCase(),
  });
  t.equal(byRecovery.status, 200, 'recovery codes ignore case');
  t.equal((await asBrowser(app, '/auth/mfa', cookie)).body.recovery_codes_remaining, 9);
  const third = (await login(app, 'nina@example.com', 'mfa password')).body.challenge_token;
  errorShape(
    t,
    await post('/auth/mfa/verify', { challenge_token: third, recovery_code: codes[0] }),
    422,
    'validation_error',
  );
  errorShape(
    t,
    await post('/auth/mfa/verify', { challenge_token: third, code: '123456', recovery_code: codes[1] }),
    400,
    'validation_error',
  );
  clock.advanceTo(clock.now().getTime() + 5 * 60_000 + 1000);
  const expired = await post('/auth/mfa/verify', { challenge_token: third, recovery_code: codes[1] });
  t.equal(errorShape(t, expired, 422, 'validation_error').errors?.[0]?.path, 'challenge_token');
});

t.test('disabling needs the password; then login signs in directly', async (t) => {
  const { cookie } = await enrolled('olga@example.com');
  errorShape(t, await post('/auth/mfa/disable', { password: 'wrong' }, cookie), 403, 'invalid_permission');
  const off = await post('/auth/mfa/disable', { password: 'mfa password' }, cookie);
  t.equal(off.status, 200);
  t.match(off.body, { object: 'mfa', enabled: false, enrolling: false, recovery_codes_remaining: 0 });
  t.equal((await asBrowser(app, '/auth/session', sessionCookieOf(off))).status, 200, 'turning it off rotates too');
  errorShape(t, await asBrowser(app, '/auth/session', cookie), 401, 'invalid_api_key');
  const direct = await login(app, 'olga@example.com', 'mfa password');
  t.equal(direct.body.object, 'session');
});

t.test('guessing codes is throttled per user', async (t) => {
  await enrolled('pam@example.com');
  const token = (await login(app, 'pam@example.com', 'mfa password')).body.challenge_token;
  // The confirmation used one of the ten attempts.
  for (let i = 0; i < 9; i++) {
    t.equal((await post('/auth/mfa/verify', { challenge_token: token, code: '000000' })).status, 422);
  }
  errorShape(t, await post('/auth/mfa/verify', { challenge_token: token, code: '000000' }), 429, 'rate_limit_exceeded');
});

t.test('GET /team/members shows each member’s role and MFA use, also for a team joined later', async (t) => {
  const { user } = await enrolled('quin@example.com');
  const team = await app.createTeam('Joined later');
  await app.runtime.services.accounts.createByOperator({
    email: 'quin@example.com',
    teamId: team.teamId,
    role: 'admin',
  });
  await app.runtime.services.accounts.createByOperator({
    email: 'rod@example.com',
    teamId: team.teamId,
    role: 'member',
  });
  const members = await asBrowser(app, '/team/members', null, { token: team.token });
  t.equal(members.status, 200);
  t.match(members.body.data, [
    { email: 'quin@example.com', role: 'admin', mfa_enabled: true },
    { email: 'rod@example.com', role: 'member', mfa_enabled: false },
  ]);
  t.ok(user.id);
});
