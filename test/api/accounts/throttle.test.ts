import t from 'tap';
import { AttemptThrottle } from '../../../core/accounts/attempt-throttle.js';
import { RateLimitExceededError } from '../../../lib/errors.js';
import { MemoryKeyValueStore } from '../../../lib/kv/memory-kv.js';
import { asBrowser, login, signup } from '../../helpers/accounts.js';
import { errorShape } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/** Login and password-reset requests are limited per account and per client address. */
t.test('the default: 10 login attempts per account per 15 minutes, then 429 with retry-after', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  await signup(app, 'target@example.com', 'the right one');
  for (let i = 0; i < 10; i++) {
    t.equal((await login(app, 'target@example.com', `guess ${i}`)).status, 401, `attempt ${i + 1}`);
  }
  const limited = await login(app, 'TARGET@example.com', 'the right one');
  errorShape(t, limited, 429, 'rate_limit_exceeded');
  const retryAfter = Number(limited.headers.get('retry-after'));
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 900, `retry-after ${retryAfter}`);
  t.equal((await login(app, 'other@example.com', 'x')).status, 401, 'another account is not limited');
});

t.test('per address: the limit spans accounts; reset requests have their own buckets', async (t) => {
  const app = await startTestApp({ config: { accounts: { attemptsPerAccount: 3, attemptsPerIp: 5 } } });
  t.teardown(() => app.close());
  for (let i = 0; i < 5; i++) t.equal((await login(app, `user${i}@example.com`, 'x')).status, 401);
  errorShape(t, await login(app, 'user9@example.com', 'x'), 429, 'rate_limit_exceeded');

  const reset = (email: string) =>
    asBrowser(app, '/auth/password-reset/request', null, { method: 'POST', body: { email } });
  for (let i = 0; i < 3; i++) t.equal((await reset('someone@example.com')).status, 200);
  const limited = errorShape(t, await reset('someone@example.com'), 429, 'rate_limit_exceeded');
  t.match(limited.message, /Too many attempts/);
  t.ok(Number((await reset('someone@example.com')).headers.get('retry-after')) >= 1);
});

t.test('a bucket of ten per 15 minutes holds through pauses: login and MFA verify', async (t) => {
  // The throttle on the in-process store with a clock the test moves (the store's sweep runs
  // on that clock): the probe's sequence of ten failures, 130 s of silence, ten more.
  let now = Date.parse('2030-01-01T00:00:00Z');
  const kv = new MemoryKeyValueStore({ now: () => now });
  t.teardown(() => kv.close());
  const throttle = new AttemptThrottle(kv, { perAccount: 10, perIp: 50 });
  const attempt = (action: string) =>
    throttle.take(action, 'target@example.com', '192.0.2.7').then(
      () => 'checked',
      (err: unknown) => {
        t.type(err, RateLimitExceededError);
        return `429 retry-after ${(err as RateLimitExceededError).headers?.['retry-after']}`;
      },
    );
  for (const action of ['login', 'mfa']) {
    const first = [];
    for (let i = 0; i < 11; i++) first.push(await attempt(action));
    t.same(first, [...Array(10).fill('checked'), '429 retry-after 90'], `${action}: ten checked, then 429`);
    now += 130_000;
    const second = [];
    for (let i = 0; i < 10; i++) second.push(await attempt(action));
    t.same(
      second,
      ['checked', ...Array(9).fill('429 retry-after 50')],
      `${action}: after 130 s idle floor(130/90) = 1 more attempt is checked, not 10`,
    );
    now += 15 * 60_000;
  }
});

t.test('single sign-on discovery is limited per address and per client, in buckets of its own', async (t) => {
  const app = await startTestApp({ config: { accounts: { attemptsPerAccount: 3, ssoDiscoveriesPerIp: 5 } } });
  t.teardown(() => app.close());
  const discover = (email: string) => asBrowser(app, '/auth/sso/discover', null, { method: 'POST', body: { email } });
  for (let i = 0; i < 3; i++) t.same((await discover('ann@example.com')).body, { object: 'sso_discovery', sso: false });
  const limited = errorShape(t, await discover('ANN@example.com'), 429, 'rate_limit_exceeded');
  t.match(limited.message, /Too many attempts/, 'the fourth look-up of one address');
  t.equal((await discover('bob@example.com')).status, 200, 'another address: the client has one try left');
  const byClient = await discover('cat@example.com');
  errorShape(t, byClient, 429, 'rate_limit_exceeded');
  t.ok(Number(byClient.headers.get('retry-after')) >= 1, 'with retry-after');
  t.equal((await login(app, 'ann@example.com', 'x')).status, 401, 'password sign-in keeps its own limits');
});
