import t from 'tap';
import { AccountRecoveryService } from '../../../core/accounts/account-recovery.service.js';
import type { AccountMailer } from '../../../core/accounts/account-mailer.js';
import type { User } from '../../../core/accounts/account.types.js';
import { AttemptThrottle } from '../../../core/accounts/attempt-throttle.js';
import { DeferredWork } from '../../../core/accounts/deferred-work.js';
import { hashSecretToken } from '../../../core/accounts/secret-token.js';
import type { KeyValueStore } from '../../../lib/kv/kv.js';
import type { Logger } from '../../../lib/logger.js';
import { asBrowser, captureAccountLinks, signup } from '../../helpers/accounts.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * Issue 31, item 7: a reset request must not tell a known address from an unknown one by its
 * timing. Tests never time anything: they check the structure that makes the timing equal. Both
 * paths do the same store work before the answer; the token and the mail come after it, are
 * never awaited by it, and a failure there is logged.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const { knex } = app.runtime.db;
const { services } = app.runtime;
const post = (path: string, body: unknown) => asBrowser(app, path, null, { method: 'POST', body });

/** Errors the process logger reports while `run` runs. */
async function loggedErrors(run: () => Promise<void>): Promise<Array<Record<string, unknown>>> {
  const errors: Array<Record<string, unknown>> = [];
  const logger = app.runtime.logger as unknown as { error: (...args: unknown[]) => void };
  const original = logger.error;
  logger.error = (entry: unknown, message?: unknown) => void errors.push({ ...(entry as object), message });
  try {
    await run();
  } finally {
    logger.error = original;
  }
  return errors;
}

/** A promise the test resolves itself: the mailer waits on it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

t.test('the service: the same store operations for both paths; token and mail only once released', async (t) => {
  const held: Array<() => void> = [];
  const logger = app.runtime.logger;
  const deferred = new DeferredWork(logger, (job) => void held.push(job));
  const mailed: Array<{ user: User; token: string }> = [];
  const mailer = {
    sendPasswordReset: async (user: User, token: string) => void mailed.push({ user, token }),
  } as unknown as AccountMailer;
  const kvCalls: string[] = [];
  const kv = new Proxy(app.runtime.kv, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        kvCalls.push(String(name));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as KeyValueStore;
  const recovery = new AccountRecoveryService({
    knex,
    clock: app.runtime.clock,
    mailer,
    throttle: new AttemptThrottle(kv, { perAccount: 100, perIp: 100 }),
    logger: logger as Logger,
    deferred,
  });
  const { user } = await signup(app, 'known@example.com');
  await services.accountRecovery.drain();

  const sql: string[] = [];
  const onQuery = (q: { sql: string }) => {
    if (/users|account_tokens|user_sessions/.test(q.sql)) sql.push(q.sql.toLowerCase());
  };
  knex.on('query', onQuery);
  t.teardown(() => void knex.removeListener('query', onQuery));
  const before = async (email: string) => {
    sql.length = 0;
    kvCalls.length = 0;
    await recovery.requestPasswordReset(email, '192.0.2.1');
    return { sql: [...sql], kv: [...kvCalls] };
  };

  const known = await before('known@example.com');
  t.equal(mailed.length, 0, 'answered before the mailer is called');
  t.equal(held.length, 1, 'the mail waits until after the answer');
  const unknown = await before('unknown@example.com');
  t.same(unknown, known, 'an unknown address does the same store operations before the answer');
  t.ok(known.sql.length >= 1 && known.kv.length >= 1, JSON.stringify(known));
  t.notOk(
    known.sql.some((q) => q.includes('account_tokens')),
    'no token is written before the answer',
  );
  t.equal(held.length, 1, 'nothing to do after the answer for an unknown address');
  t.equal((await knex('account_tokens').where({ user_id: user.id, kind: 'password_reset' })).length, 0);

  held.shift()!();
  await deferred.drain();
  t.equal(mailed.length, 1, 'the mail goes out once released');
  t.equal(mailed[0]!.user.id, user.id);
  const stored = await knex('account_tokens').where({ user_id: user.id, kind: 'password_reset' });
  t.equal(stored.length, 1);
  t.equal(stored[0].token_hash, hashSecretToken(mailed[0]!.token), 'the mailed link is the stored token');
});

t.test('over HTTP: the answer comes while the mailer is still blocked; the link works once released', async (t) => {
  await signup(app, 'blocked@example.com', 'blocked old password');
  await services.accountRecovery.drain();
  const mailer = services.accountMailer;
  const original = mailer.sendPasswordReset;
  t.teardown(() => void (mailer.sendPasswordReset = original));
  const release = gate();
  let called = 0;
  let finished = 0;
  mailer.sendPasswordReset = async (user, token) => {
    called++;
    await release.opened;
    await original.call(mailer, user, token);
    finished++;
  };
  const links = captureAccountLinks(app);
  t.teardown(links.restore);

  const known = await post('/auth/password-reset/request', { email: 'blocked@example.com' });
  const unknown = await post('/auth/password-reset/request', { email: 'nobody-here@example.com' });
  t.equal(known.status, 200);
  t.equal(known.text, unknown.text, 'the same answer');
  t.equal(finished, 0, 'answered while the mail is still held');
  t.same(links.links, [], 'no link yet');

  release.open();
  await services.accountRecovery.drain();
  t.equal(called, 1, 'one mail, for the known address only');
  t.equal(finished, 1);
  const token = links.last('password_reset', 'blocked@example.com');
  t.equal((await post('/auth/password-reset', { token, password: 'blocked new password' })).status, 200);
});

t.test('a mailer failure after the answer is logged and nothing crashes', async (t) => {
  const { user } = await signup(app, 'failing@example.com');
  await services.accountRecovery.drain();
  const mailer = services.accountMailer;
  const original = mailer.sendPasswordReset;
  t.teardown(() => void (mailer.sendPasswordReset = original));
  mailer.sendPasswordReset = async () => {
    throw new Error('relay refused');
  };
  let answer = 0;
  const errors = await loggedErrors(async () => {
    answer = (await post('/auth/password-reset/request', { email: 'failing@example.com' })).status;
    await services.accountRecovery.drain();
  });
  t.equal(answer, 200, 'the request itself succeeded');
  t.equal(errors.length, 1, JSON.stringify(errors));
  t.match(errors[0], { userId: user.id, err: { message: 'relay refused' }, message: /password-reset mail/ });

  mailer.sendPasswordReset = original;
  const again = await post('/auth/password-reset/request', { email: 'failing@example.com' });
  t.equal(again.status, 200, 'the appliance goes on answering');
  await services.accountRecovery.drain();
});
