import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * Auto-configure refusals that need no DNS server (the BIND ones are in
 * domain-auto-configure.test.ts): a name outside every configured zone, a primary that is down,
 * a key file that cannot be read. Runs in both database passes.
 */
const dir = mkdtempSync(join(tmpdir(), 'mailroom-autoconf-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const keyFile = join(dir, 'tsig.key');
writeFileSync(keyFile, `${Buffer.alloc(32, 1).toString('base64')}\n`);

/** A loopback port with nothing listening: the connection is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const port = await closedPort();
const zone = (name: string, keySecretFile = keyFile) => ({
  zone: name,
  server: '127.0.0.1',
  port,
  keyName: 'mailroom.',
  keySecretFile,
});
const app = await startTestApp({
  config: { dns: { updateZones: [zone('down.test'), zone('nokey.test', join(dir, 'missing.key'))] } },
});
t.teardown(() => app.close());
const team = await app.createTeam('Auto-configure errors', 'unlimited');
const call = (method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const create = async (name: string): Promise<string> => {
  const res = await call('POST', '/domains', { name });
  if (res.status !== 201) throw new Error(`POST /domains ${name}: ${res.status} ${res.text}`);
  return (res.body as { id: string }).id;
};
const autoConfigure = (id: string) => call('POST', `/domains/${id}/auto-configure`);

t.test('a domain in no configured zone: 422 validation_error, nothing changes', async (t) => {
  const id = await create('mail.unlisted.test');
  const body = errorShape(t, await autoConfigure(id), 422, 'validation_error');
  t.match(body.message, /dns\.updateZones/);
  t.equal(body.details, undefined);
  t.equal((await call('GET', `/domains/${id}`)).body.managed, false);
});

t.test('a zone whose primary does not answer: 503 service_unavailable, not managed', async (t) => {
  const id = await create('mail.down.test');
  const body = errorShape(t, await autoConfigure(id), 503, 'service_unavailable');
  t.match(body.message, /did not answer/);
  t.equal((await call('GET', `/domains/${id}`)).body.managed, false);
});

t.test('a key file that cannot be read: 503 service_unavailable, without the path', async (t) => {
  const id = await create('mail.nokey.test');
  const body = errorShape(t, await autoConfigure(id), 503, 'service_unavailable');
  t.notMatch(body.message, /missing\.key/);
});

t.test('an unknown domain: 404 not_found', async (t) => {
  errorShape(t, await autoConfigure('01a217ee-0000-7000-8000-000000000000'), 404, 'not_found');
});

t.test('an unmanaged domain is rotated and deleted without touching any zone', async (t) => {
  const id = await create('plain.down.test');
  t.equal((await call('POST', `/domains/${id}/dkim/rotate`, { algorithm: 'rsa' })).status, 200);
  t.equal((await call('DELETE', `/domains/${id}`)).status, 200);
});
