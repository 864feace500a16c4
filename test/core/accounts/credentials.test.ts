import t from 'tap';
import { hashPassword, verifyPassword } from '../../../core/accounts/password-hash.js';
import { hashSecretToken, newSecretToken } from '../../../core/accounts/secret-token.js';
import { clearedSessionCookie, readSessionCookie, sessionCookie } from '../../../api/session-cookie.js';

t.test('passwords: scrypt, salted, self-describing; wrong or malformed never match', async (t) => {
  const a = await hashPassword('correct horse');
  const b = await hashPassword('correct horse');
  t.match(a, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  t.not(a, b, 'a new salt each time');
  t.ok(await verifyPassword('correct horse', a));
  t.notOk(await verifyPassword('correct horse ', a));
  t.notOk(await verifyPassword('correct horse', 'bcrypt$whatever'));
  t.notOk(await verifyPassword('correct horse', a.replace(/\$[^$]+$/, '$short')));
  const key = a.split('$')[5];
  t.notOk(await verifyPassword('x', `scrypt$99999999$8$1$c2FsdA$${key}`), 'absurd parameters are refused, not run');
  t.notOk(await verifyPassword('x', `scrypt$1000$8$1$c2FsdA$${key}`), 'N not a power of two');
});

t.test('secret tokens: 256 random bits, stored as SHA-256', async (t) => {
  const { token, hash } = newSecretToken();
  t.match(token, /^[A-Za-z0-9_-]{43}$/);
  t.equal(hash, hashSecretToken(token));
  t.not(newSecretToken().token, token);
});

t.test('the session cookie: attributes, Secure in production, parsing', async (t) => {
  t.equal(sessionCookie('abc', false), 'mailroom_session=abc; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax');
  t.match(sessionCookie('abc', true), /; Secure$/);
  t.match(clearedSessionCookie(true), /^mailroom_session=; Max-Age=0; .*; Secure$/);
  t.equal(readSessionCookie('a=1; mailroom_session=tok; b=2'), 'tok');
  t.equal(readSessionCookie('mailroom_session='), undefined);
  t.equal(readSessionCookie('xmailroom_session=tok'), undefined);
  t.equal(readSessionCookie(undefined), undefined);
  t.equal(readSessionCookie(`mailroom_session=${'x'.repeat(200)}`), undefined, 'oversized values are ignored');
});
