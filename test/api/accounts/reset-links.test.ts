import { Secret, TOTP } from 'otpauth';
import t, { type Test } from 'tap';
import { asBrowser, captureAccountLinks, login, sessionCookieOf, signup } from '../../helpers/accounts.js';
import { movableClock } from '../../helpers/clock.js';
import { errorShape, type HttpResponse } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * A password change kills every outstanding password-setting link of the account (reset links
 * and the operator's set-password links, one token kind) and every pending MFA challenge, in
 * the transaction that sets the password: issue 31, item 2.
 */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const mail = captureAccountLinks(app);
t.teardown(mail.restore);
const { services } = app.runtime;
const post = (path: string, body: unknown, cookie: string | null = null) =>
  asBrowser(app, path, cookie, { method: 'POST', body });

/** Reset links are written after the answer: wait for them before reading the log. */
async function requestResets(email: string, count: number): Promise<string[]> {
  const before = mail.links.length;
  for (let i = 0; i < count; i++) {
    const answer = await post('/auth/password-reset/request', { email });
    if (answer.status !== 200) throw new Error(`reset request ${i + 1}: ${answer.status} ${answer.text}`);
  }
  await services.accountRecovery.drain();
  const tokens = mail.links.slice(before).filter((l) => l.kind === 'password_reset' && l.to === email);
  if (tokens.length !== count) throw new Error(`expected ${count} reset links, got ${tokens.length}`);
  return tokens.map((l) => l.token);
}

/** The refusal of a dead link: 422 validation_error naming the token, nothing else in the body. */
function refusedLink(t: Test, response: HttpResponse) {
  const body = errorShape(t, response, 422, 'validation_error');
  t.match(body.message, /invalid, expired or already used/);
  t.same(body.errors, [{ path: 'token', message: 'is invalid, expired or already used' }]);
}

t.test('the probe: 8 reset links, the newest used, the oldest (and every other) then refused', async (t) => {
  await signup(app, 'pia@example.com', 'pia first password');
  const links = await requestResets('pia@example.com', 8);
  t.equal(new Set(links).size, 8, 'eight distinct links');

  const newest = await post('/auth/password-reset', { token: links[7], password: 'pia newest password' });
  t.equal(newest.status, 200, newest.text);
  const session = sessionCookieOf(await login(app, 'pia@example.com', 'pia newest password'));

  refusedLink(t, await post('/auth/password-reset', { token: links[0], password: 'pia attacker password' }));
  for (const token of links.slice(1, 7)) {
    refusedLink(t, await post('/auth/password-reset', { token, password: 'pia attacker password' }));
  }
  t.equal((await asBrowser(app, '/auth/session', session)).status, 200, 'the session after the reset lives on');
  errorShape(t, await login(app, 'pia@example.com', 'pia attacker password'), 401, 'invalid_api_key');
  t.equal((await login(app, 'pia@example.com', 'pia newest password')).status, 200, 'the password stayed');
  const live = await app.runtime.db
    .knex('account_tokens')
    .where({ user_id: newest.body.id, kind: 'password_reset' })
    .whereNull('used_at');
  t.same(live, [], 'no usable password-setting token is left');
});

t.test('a new link after a reset works: only links issued before the change die', async (t) => {
  await signup(app, 'quin@example.com', 'quin first password');
  const [first] = await requestResets('quin@example.com', 1);
  t.equal((await post('/auth/password-reset', { token: first, password: 'quin second password' })).status, 200);
  const [later] = await requestResets('quin@example.com', 1);
  t.equal((await post('/auth/password-reset', { token: later, password: 'quin third password' })).status, 200);
  t.equal((await login(app, 'quin@example.com', 'quin third password')).status, 200);
});

t.test("a reset kills the operator's set-password link; a set-password link kills reset links", async (t) => {
  const { teamId } = await app.createTeam('Ops');
  const made = await services.accounts.createByOperator({ email: 'rex@example.com', teamId, role: 'member' });
  const setPassword = made.setPasswordToken!;
  t.ok(setPassword, 'a set-password token for a user without a password');
  const again = await services.accounts.createByOperator({ email: 'rex@example.com', teamId, role: 'member' });
  const secondSetPassword = again.setPasswordToken!;
  const [reset] = await requestResets('rex@example.com', 1);

  t.equal((await post('/auth/password-reset', { token: reset, password: 'rex own password' })).status, 200);
  refusedLink(t, await post('/auth/password-reset', { token: setPassword, password: 'rex other password' }));
  refusedLink(t, await post('/auth/password-reset', { token: secondSetPassword, password: 'rex other password' }));

  const [next] = await requestResets('rex@example.com', 1);
  const third = (await services.accounts.createByOperator({ email: 'rex@example.com', teamId, role: 'member' }))
    .setPasswordToken!;
  t.equal((await post('/auth/password-reset', { token: third, password: 'rex set password' })).status, 200);
  refusedLink(t, await post('/auth/password-reset', { token: next, password: 'rex other password' }));
  t.equal((await login(app, 'rex@example.com', 'rex set password')).status, 200);
});

t.test('the operator setting a password (user create --password-stdin) kills links and sessions', async (t) => {
  const { teamId } = await app.createTeam('Ops 2');
  const { cookie } = await signup(app, 'sam@example.com', 'sam first password');
  const links = await requestResets('sam@example.com', 3);
  const setPassword = (await services.accounts.createByOperator({ email: 'sam@example.com', teamId, role: 'member' }))
    .setPasswordToken!;

  const changed = await services.accounts.createByOperator({
    email: 'sam@example.com',
    teamId,
    role: 'member',
    password: 'sam operator password',
  });
  t.equal(changed.created, false, 'an existing user');
  for (const token of [...links, setPassword]) {
    refusedLink(t, await post('/auth/password-reset', { token, password: 'sam attacker password' }));
  }
  errorShape(t, await asBrowser(app, '/auth/session', cookie), 401, 'invalid_api_key');
  t.equal((await login(app, 'sam@example.com', 'sam operator password')).status, 200);
});

t.test('a reset ends MFA challenges started with the old password', async (t) => {
  const { cookie } = await signup(app, 'tia@example.com', 'tia old password');
  const enrol = await post('/auth/mfa/enrol', {}, cookie);
  const secret = enrol.body.secret as string;
  const code = () => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: clock.now().getTime() });
  t.equal((await post('/auth/mfa/confirm', { code: code() }, cookie)).status, 200);
  const challenge = (await login(app, 'tia@example.com', 'tia old password')).body.challenge_token as string;
  t.ok(challenge, 'a challenge after the old password');

  const [reset] = await requestResets('tia@example.com', 1);
  t.equal((await post('/auth/password-reset', { token: reset, password: 'tia new password' })).status, 200);
  clock.advanceTo(clock.now().getTime() + 30_000); // a fresh code: the confirming one is spent
  const refused = errorShape(
    t,
    await post('/auth/mfa/verify', { challenge_token: challenge, code: code() }),
    422,
    'validation_error',
  );
  t.equal(refused.errors?.[0]?.path, 'challenge_token');
});

t.test('two links of one account used at once: one sets the password, the other is refused', async (t) => {
  await signup(app, 'uma@example.com', 'uma first password');
  for (let round = 0; round < 4; round++) {
    const links = await requestResets('uma@example.com', 2);
    const answers = await Promise.all(
      links.map((token, i) => post('/auth/password-reset', { token, password: `uma password ${round} ${i}` })),
    );
    t.same(answers.map((a) => a.status).sort(), [200, 422], `round ${round + 1}: ${answers.map((a) => a.text)}`);
    const won = answers.findIndex((a) => a.status === 200);
    t.equal((await login(app, 'uma@example.com', `uma password ${round} ${won}`)).status, 200);
  }
});
