import { connect } from 'node:net';
import t from 'tap';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * A body over the limit on the public pages (the OAuth endpoints, the consent and preference
 * forms) is answered 413 with Connection: close and the connection ends, as the JSON API does:
 * the rest of the body is never read, so a kept-alive connection would otherwise hang. Each case
 * runs on a raw keep-alive socket, where a client sees exactly what the server does.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const { hostname } = new URL(app.url);
const ONE_MB = 1024 * 1024;

type Exchange = { head: string; body: string; closed: boolean };

/** Sends a 1 MB body on a keep-alive connection; resolves once the socket closes or 5 s pass. */
function oversized(path: string, contentType: string, extraHeaders = '', url = app.url): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(url).port), hostname);
    let received = '';
    let closed = false;
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const split = received.indexOf('\r\n\r\n');
      resolve({ head: received.slice(0, split), body: received.slice(split + 4), closed });
    };
    const timer = setTimeout(finish, 5000);
    socket.on('data', (chunk) => (received += chunk.toString('utf8')));
    // The server stops reading: writing the rest may meet a reset, which is a close too.
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: ${hostname}\r\nUser-Agent: probe/1.0\r\nConnection: keep-alive\r\n` +
        `Content-Type: ${contentType}\r\nContent-Length: ${ONE_MB}\r\n${extraHeaders}\r\n`,
    );
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const more = () => {
      while (sent < ONE_MB && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', more);
      }
    };
    more();
  });
}

const header = (head: string, name: string) =>
  new RegExp(`^${name}: *(.*)$`, 'im').exec(head)?.[1]?.trim().toLowerCase() ?? null;

t.test('the OAuth endpoints: 413 in the OAuth error shape, then the connection closes', async (t) => {
  for (const [path, type] of [
    ['/oauth/token', 'application/x-www-form-urlencoded'],
    ['/oauth/register', 'application/json'],
    ['/oauth/revoke', 'application/x-www-form-urlencoded'],
  ] as const) {
    const exchange = await oversized(path, type);
    t.match(exchange.head, /^HTTP\/1\.1 413 /, `${path}: 413`);
    t.equal(header(exchange.head, 'connection'), 'close', `${path}: Connection: close`);
    t.match(header(exchange.head, 'content-type'), /application\/json/, `${path}: JSON`);
    t.equal(header(exchange.head, 'cache-control'), 'no-store', `${path}: not cached`);
    const body = JSON.parse(exchange.body);
    t.same(Object.keys(body).sort(), ['error', 'error_description'], `${path}: the OAuth error shape`);
    t.equal(body.error, 'invalid_request', `${path}: invalid_request`);
    t.match(body.error_description, /at most 65536 bytes/);
    t.ok(exchange.closed, `${path}: the server closed the connection`);
  }
});

t.test('the HTML pages: a 413 page, then the connection closes', async (t) => {
  for (const path of ['/preferences/abc', '/unsubscribe/abc', '/oauth/consent', '/oauth/consent/login']) {
    const exchange = await oversized(path, 'application/x-www-form-urlencoded');
    t.match(exchange.head, /^HTTP\/1\.1 413 /, `${path}: 413`);
    t.equal(header(exchange.head, 'connection'), 'close', `${path}: Connection: close`);
    t.match(header(exchange.head, 'content-type'), /text\/html/, `${path}: an HTML page`);
    t.match(exchange.body, /<h1>Too large<\/h1>/, `${path}: says why`);
    t.ok(exchange.closed, `${path}: the server closed the connection`);
  }
});

t.test('the JSON API, for comparison: its refusal closes the same way (one function)', async (t) => {
  const small = await startTestApp({ config: { api: { maxBodyBytes: 4096 } } });
  t.teardown(() => small.close());
  const { token } = await small.createTeam('Big bodies');
  const auth = `Authorization: Bearer ${token}\r\n`;
  const exchange = await oversized('/api/v1/emails', 'application/json', auth, small.url);
  t.match(exchange.head, /^HTTP\/1\.1 400 /, 'the API’s own refusal (400 validation_error)');
  t.match(JSON.parse(exchange.body), { statusCode: 400, name: 'validation_error' });
  t.equal(header(exchange.head, 'connection'), 'close', 'Connection: close');
  t.ok(exchange.closed, 'the server closed the connection');
});
