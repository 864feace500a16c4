import { Resend } from 'resend';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * Issue 32: `new Resend(key, { baseUrl: 'http://host/api/v1/' })` asks for `/api/v1//emails`;
 * repeated slashes in a path are read as one for routing, on both bases. Paths of the pages and
 * tracking middlewares are matched as sent: a doubled slash never becomes a redirect.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await app.createTeam();
await markedVerifiedDomain(app, team.teamId, 'slash.test');

for (const base of [`${app.url}/api/v1/`, `${app.url}/`, `${app.url}/api/v1//`]) {
  t.test(`the resend SDK with baseUrl ${base.slice(app.url.length)}: send, get, list`, async (t) => {
    const resend = new Resend(team.token, { baseUrl: base } as never);
    const sent = await resend.emails.send({
      from: 'Me <me@slash.test>',
      to: 'someone@example.com',
      subject: `Trailing slash ${base.length}`,
      text: 'hello',
    });
    t.equal(sent.error, null);
    t.match(sent.data, { id: /^[0-9a-f-]{36}$/ });
    const got = await resend.emails.get(sent.data!.id);
    t.equal(got.error, null);
    t.match(got.data, { object: 'email', id: sent.data!.id, subject: `Trailing slash ${base.length}` });
    const list = await resend.emails.list();
    t.equal(list.error, null);
    t.ok(
      list.data!.data.some((email) => email.id === sent.data!.id),
      'listed',
    );
    const domains = await resend.domains.list();
    t.equal(domains.error, null);
    t.ok(domains.data!.data.some((d) => d.name === 'slash.test'));
  });
}

t.test('doubled slashes elsewhere: the same route, or a 404 body, never a redirect', async (t) => {
  const got = await request(app.url, '/api/v1//domains//', { token: team.token });
  t.equal(got.status, 200);
  t.equal(got.body.object, 'list');
  for (const path of [
    '//evil.example',
    '//evil.example/',
    '/api/v1//evil.example',
    '///evil.example/emails',
    '//c/abc',
    '//o/abc',
    '//unsubscribe/abc',
    '//preferences/abc',
  ]) {
    const res = await request(app.url, path, { token: team.token });
    t.notOk(res.headers.get('location'), `${path}: no Location`);
    errorShape(t, res, 404, 'not_found');
  }
  const unknown = await request(app.url, '//emails', {});
  errorShape(t, unknown, 401, 'missing_api_key');
});
