import { connect } from 'node:net';
import t from 'tap';
import { startTestApp } from '../helpers/test-app.js';

/** Requests Node's HTTP parser refuses get the spec's error body, not Node's bare 400. */
const app = await startTestApp();
t.teardown(() => app.close());
const { hostname, port } = new URL(app.url);

function raw(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

const bodyOf = (response: string) => JSON.parse(response.slice(response.lastIndexOf('\r\n\r\n') + 4));

t.test('a malformed request line', async (t) => {
  const response = await raw('NOT A REQUEST\r\n\r\n');
  t.match(response, /^HTTP\/1\.1 400 Bad Request\r\n/);
  t.match(response, /Content-Type: application\/json/);
  t.same(Object.keys(bodyOf(response)).sort(), ['message', 'name', 'statusCode']);
  t.match(bodyOf(response), { statusCode: 400, name: 'validation_error' });
});

t.test('a DELETE whose body has no framing', async (t) => {
  // The stray body reads as the next request's line; arriving in one packet, the parser fails
  // before the DELETE is answered, and the connection ends with the error body.
  const response = await raw('DELETE /api/v1/topics/x HTTP/1.1\r\nHost: a\r\nUser-Agent: t\r\n\r\n{"a":1}');
  t.match(response, /HTTP\/1\.1 400 Bad Request[\s\S]*"name":"validation_error"/, 'the stray body is refused');
  t.match(bodyOf(response), { message: /Content-Length or chunked/ });
});

t.test('headers too large', async (t) => {
  const response = await raw(`GET /api/v1/domains HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  t.match(response, /^HTTP\/1\.1 400 Bad Request\r\n/);
  t.match(bodyOf(response), { name: 'validation_error', message: /headers are too large/ });
});
