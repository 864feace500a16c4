import t from 'tap';
import { asBrowser, captureAccountLinks, login, sessionCookieOf, signup } from '../../helpers/accounts.js';
import { movableClock } from '../../helpers/clock.js';
import { errorShape, request } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * E-mail verification and password reset, with no account mail sender configured: the links go
 * to the process log, where the test reads them. Time moves on a movable clock.
 */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const mail = captureAccountLinks(app);
t.teardown(mail.restore);
const post = (path: string, body: unknown, cookie: string | null = null) =>
  asBrowser(app, path, cookie, { method: 'POST', body });
const later = (ms: number) => clock.advanceTo(clock.now().getTime() + ms);

t.test('signup logs a verification link; the token verifies once', async (t) => {
  const { cookie, user } = await signup(app, 'dana@example.com');
  const entry = mail.links.find((l) => l.to === 'dana@example.com')!;
  t.match(entry.link, new RegExp(`^${app.url}/dashboard/verify-email\\?token=`), 'a link on the public URL');
  const verified = await post('/auth/verify-email', { token: entry.token });
  t.equal(verified.status, 200);
  t.match(verified.body, { object: 'user', id: user.id, email_verified_at: String });
  t.same(Object.keys(verified.body).sort(), ['email_verified_at', 'id', 'object']);
  const session = await asBrowser(app, '/auth/session', cookie);
  t.equal(session.body.user.email_verified_at, verified.body.email_verified_at);

  const again = errorShape(t, await post('/auth/verify-email', { token: entry.token }), 422, 'validation_error');
  t.equal(again.errors?.[0]?.path, 'token', 'single use');
  errorShape(t, await post('/auth/verify-email', { token: 'made-up' }), 422, 'validation_error');
  errorShape(t, await post('/auth/verify-email', { token: '' }), 400, 'validation_error');
  errorShape(t, await post('/auth/verify-email', { token: 'x'.repeat(513) }), 400, 'validation_error');
  const stored = await app.runtime.db.knex('account_tokens').where({ user_id: user.id });
  t.ok(
    stored.every((row: { token_hash: string }) => row.token_hash !== entry.token),
    'tokens are stored hashed',
  );
});

t.test('a verification token expires after 48 hours; resend sends a new one', async (t) => {
  const { cookie } = await signup(app, 'eve@example.com');
  const first = mail.last('verify_email', 'eve@example.com');
  later(48 * 3_600_000 + 1000);
  errorShape(t, await post('/auth/verify-email', { token: first }), 422, 'validation_error');
  const resent = await post('/auth/verify-email/resend', {}, cookie);
  t.equal(resent.status, 202);
  t.same(resent.body, { object: 'email_verification', sent: true });
  const second = mail.last('verify_email', 'eve@example.com');
  t.not(second, first);
  t.equal((await post('/auth/verify-email', { token: second })).status, 200);
  const done = await post('/auth/verify-email/resend', {}, cookie);
  t.same(done.body, { object: 'email_verification', sent: false }, 'nothing to send once verified');
  errorShape(t, await post('/auth/verify-email/resend', {}), 401, 'missing_api_key');
});

t.test('password-reset request: the same answer for known and unknown addresses', async (t) => {
  await signup(app, 'fay@example.com', 'fay old password');
  const before = mail.links.length;
  const known = await post('/auth/password-reset/request', { email: 'FAY@example.com' });
  const unknown = await post('/auth/password-reset/request', { email: 'nobody@example.com' });
  await app.runtime.services.accountRecovery.drain(); // the link is written after the answer
  t.equal(known.status, 200);
  t.same(known.body, { object: 'password_reset', requested: true });
  t.equal(unknown.status, known.status);
  t.equal(unknown.text, known.text, 'byte-identical');
  t.same(
    mail.links.slice(before).map((l) => [l.kind, l.to]),
    [['password_reset', 'fay@example.com']],
    'a link only for the real account',
  );
  t.match(mail.links.at(-1)!.link, new RegExp(`^${app.url}/dashboard/reset-password\\?token=`));
  errorShape(t, await post('/auth/password-reset/request', { email: 'no' }), 400, 'validation_error');
});

t.test('password reset sets the password, is single-use and ends every session', async (t) => {
  const { cookie: a } = await signup(app, 'gus@example.com', 'gus old password');
  const b = sessionCookieOf(await login(app, 'gus@example.com', 'gus old password'));
  await post('/auth/password-reset/request', { email: 'gus@example.com' });
  await app.runtime.services.accountRecovery.drain();
  const token = mail.last('password_reset', 'gus@example.com');
  errorShape(t, await post('/auth/password-reset', { token, password: '12345' }), 400, 'validation_error');
  const reset = await post('/auth/password-reset', { token, password: 'gus new password' });
  t.equal(reset.status, 200);
  t.match(reset.body, { object: 'user', id: String });
  t.same(Object.keys(reset.body).sort(), ['id', 'object']);
  errorShape(t, await asBrowser(app, '/auth/session', a), 401, 'invalid_api_key');
  errorShape(t, await asBrowser(app, '/auth/session', b), 401, 'invalid_api_key');
  errorShape(t, await login(app, 'gus@example.com', 'gus old password'), 401, 'invalid_api_key');
  t.equal((await login(app, 'gus@example.com', 'gus new password')).status, 200);
  errorShape(t, await post('/auth/password-reset', { token, password: 'third password' }), 422, 'validation_error');
});

t.test('a reset token expires after one hour', async (t) => {
  await signup(app, 'hal@example.com', 'hal old password');
  await post('/auth/password-reset/request', { email: 'hal@example.com' });
  await app.runtime.services.accountRecovery.drain();
  const token = mail.last('password_reset', 'hal@example.com');
  later(3_600_000 + 1000);
  const refused = errorShape(
    t,
    await post('/auth/password-reset', { token, password: 'hal new one' }),
    422,
    'validation_error',
  );
  t.match(refused.message, /invalid, expired or already used/);
});

t.test('sessions end after 7 idle days, and after 30 days however busy', async (t) => {
  const { cookie: idle } = await signup(app, 'ida@example.com', 'ida password');
  later(6 * 86_400_000);
  t.equal((await asBrowser(app, '/auth/session', idle)).status, 200, 'six idle days: still alive (and seen now)');
  later(6 * 86_400_000);
  t.equal((await asBrowser(app, '/auth/session', idle)).status, 200, 'six more days since last seen');
  later(7 * 86_400_000 + 1000);
  errorShape(t, await asBrowser(app, '/auth/session', idle), 401, 'invalid_api_key');

  const busy = sessionCookieOf(await login(app, 'ida@example.com', 'ida password'));
  for (let step = 1; step <= 5; step++) {
    later(5.9 * 86_400_000);
    t.equal((await asBrowser(app, '/auth/session', busy)).status, 200, `day ${(step * 5.9).toFixed(1)}`);
  }
  later(1 * 86_400_000);
  errorShape(t, await asBrowser(app, '/auth/session', busy), 401, 'invalid_api_key');
});

t.test('routes reachable without a session refuse a foreign Origin too', async (t) => {
  errorShape(
    t,
    await request(app.url, '/auth/password-reset/request', {
      method: 'POST',
      body: { email: 'a@example.com' },
      headers: { origin: 'https://evil.example' },
    }),
    403,
    'invalid_permission',
  );
});

t.test('the retention job removes ended sessions and expired tokens a day after they end', async (t) => {
  const { jobs } = await import('../../../scheduler/jobs/index.js');
  const job = jobs.find((j) => j.name === 'purge-account-sessions')!;
  await job.run(app.runtime.services); // what earlier tests left behind
  const { cookie } = await signup(app, 'ray@example.com');
  const { knex } = app.runtime.db;
  const user = await knex('users').where({ email: 'ray@example.com' }).first();
  const invited = await asBrowser(app, '/auth/invitations', cookie, {
    method: 'POST',
    body: { email: 'rae@example.com' },
  });
  t.equal(invited.status, 201, invited.text);
  await asBrowser(app, '/auth/logout', cookie, { method: 'POST', body: {} });
  t.same(
    await job.run(app.runtime.services),
    { sessions: 0, account_tokens: 0, invitations: 0 },
    'nothing ended a day ago',
  );
  later(73 * 3_600_000);
  const result = await job.run(app.runtime.services);
  t.ok(result.sessions! >= 1 && result.account_tokens! >= 1, JSON.stringify(result));
  t.equal((await knex('user_sessions').where({ user_id: user.id })).length, 0);
  t.equal((await knex('account_tokens').where({ user_id: user.id })).length, 0);
  t.equal((await knex('team_invitations').where({ id: invited.body.id })).length, 1, 'invitations stay 90 days');
  later(90 * 86_400_000);
  t.ok((await job.run(app.runtime.services)).invitations! >= 1);
  t.equal((await knex('team_invitations').where({ id: invited.body.id })).length, 0);
});
