import t from 'tap';
import { request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { fakeSendRoute } from '../helpers/test-routes.js';

const app = await startTestApp({ extraRoutes: [fakeSendRoute({ calls: 0 })] });
t.teardown(() => app.close());
const { token } = await app.createTeam('Redaction');

const SECRET_CONTENT = 'The launch code is 0000-TOPSECRET';
const attachment = Buffer.from('attachment body that must never be logged').toString('base64');

async function latestLogDetail() {
  const item = (await request(app.url, '/logs?search=/test/emails', { token })).body.data[0];
  return (await request(app.url, `/logs/${item.id}`, { token })).body;
}

t.test('send content is replaced by byte counts and attachment digests', async (t) => {
  const res = await request(app.url, '/test/emails', {
    method: 'POST',
    token,
    body: {
      from: 'me@example.com',
      to: ['you@example.com'],
      subject: SECRET_CONTENT,
      html: `<p>${SECRET_CONTENT}</p>`,
      text: SECRET_CONTENT,
      headers: { 'X-Note': SECRET_CONTENT },
      template: { id: 'welcome', variables: { code: SECRET_CONTENT } },
      attachments: [{ filename: 'a.txt', content: attachment }],
    },
  });
  t.equal(res.status, 200);
  const log = await latestLogDetail();
  t.equal(log.email_id, res.body.id, 'the log links the email it created');
  t.same(log.request_body.subject, { bytes: Buffer.byteLength(SECRET_CONTENT) });
  t.same(log.request_body.text, { bytes: Buffer.byteLength(SECRET_CONTENT) });
  t.same(log.request_body.attachments, [
    {
      filename: 'a.txt',
      size: Buffer.from(attachment, 'base64').length,
      sha256: (await import('node:crypto'))
        .createHash('sha256')
        .update(Buffer.from(attachment, 'base64'))
        .digest('hex'),
    },
  ]);
  t.same(log.request_body.to, ['you@example.com'], 'addresses are kept');
  t.notMatch(JSON.stringify(log), /TOPSECRET|attachment body/);
});

t.test('a body naming a password, token, secret or key is dropped whole', async (t) => {
  for (const body of [
    { password: 'hunter2' },
    { nested: { api_key: 'x' } },
    { token: 'abc' },
    { client_secret: 's' },
    { list: [{ private_key: 'k' }] },
    { note: 'svc_0123456789abcdefXYZ' },
  ]) {
    await request(app.url, '/test/emails', { method: 'POST', token, body });
    const log = await latestLogDetail();
    t.equal(log.request_body, null, `dropped: ${Object.keys(body)[0]}`);
  }
  await request(app.url, '/test/emails', {
    method: 'POST',
    token,
    body: { template: { variables: [{ key: 'name', type: 'string' }] } },
  });
  t.same(
    (await latestLogDetail()).request_body,
    { template: { variables: [{ key: 'name', type: 'string' }] } },
    'a template variable named by `key` is not a secret',
  );
});

t.test('no log row anywhere holds a token, password or content; the database holds no plaintext key', async (t) => {
  const created = await request(app.url, '/api-keys', { method: 'POST', token, body: { name: 'fresh' } });
  const newToken: string = created.body.token;
  await request(app.url, '/test/emails', {
    method: 'POST',
    token: newToken,
    body: { password: 'pw-SECRET', subject: SECRET_CONTENT },
  });
  const knex = app.runtime.db.knex;
  const tables =
    app.runtime.db.dialect === 'sqlite'
      ? (await knex.raw(`SELECT name FROM sqlite_master WHERE type = 'table'`)).map((r: { name: string }) => r.name)
      : (await knex.raw('SHOW TABLES'))[0].map((r: Record<string, string>) => Object.values(r)[0]);
  t.ok(tables.includes('api_keys') && tables.includes('request_logs'));
  let dump = '';
  for (const table of tables) dump += JSON.stringify(await knex(table).select('*'));
  for (const secret of [token, newToken, token.slice(4), newToken.slice(4), 'pw-SECRET', 'TOPSECRET']) {
    t.notOk(dump.includes(secret), `dump does not contain ${secret.slice(0, 8)}…`);
  }
  t.ok(dump.includes(newToken.slice(0, 12)), 'the key prefix is kept for recognition');
});

t.test('a body nested thousands of levels deep is logged without its body, not lost', async (t) => {
  const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
  const res = await request(app.url, '/test/emails', {
    method: 'POST',
    token,
    rawBody: deep,
    headers: { 'content-type': 'application/json' },
  });
  t.ok(res.status < 500, `answered ${res.status}`);
  const log = await latestLogDetail();
  t.equal(log.response_status, res.status, 'the request has its log entry');
  t.equal(log.request_body, null, 'its body is not kept');
  let nested: unknown = { to: ['you@example.com'] };
  for (let i = 0; i < 20; i++) nested = { level: nested };
  await request(app.url, '/test/emails', { method: 'POST', token, body: nested });
  t.not((await latestLogDetail()).request_body, null, 'a body 21 levels deep is still kept');
});

t.test('a body whose measurement is over 1 MB is kept as its size alone, and the entry is written', async (t) => {
  // About 25 MB of addresses: more than a MEDIUMTEXT column and MariaDB's default 16 MB packet.
  const to = Array.from({ length: 900_000 }, (_, i) => `recipient${i}@example.com`);
  const res = await request(app.url, '/test/emails', {
    method: 'POST',
    token,
    body: { from: 'me@example.com', to, subject: 's' },
  });
  const requestId = res.headers.get('x-request-id');
  const item = (await request(app.url, '/logs?search=/test/emails', { token })).body.data.find(
    (entry: { request_id: string }) => entry.request_id === requestId,
  );
  t.ok(item, 'the request has its log entry');
  const log = (await request(app.url, `/logs/${item?.id}`, { token })).body;
  t.same(Object.keys(log.request_body), ['bytes']);
  t.ok(log.request_body.bytes > 1024 * 1024, `${log.request_body.bytes} bytes measured`);
});
