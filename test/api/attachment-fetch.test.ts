import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';
import { writeSelfSignedCertificate } from '../helpers/self-signed-certificate.js';

/**
 * Attachments by `path` against a real local HTTPS server. The default configuration refuses
 * it (loopback); a test-only allow-list lets it through; every refusal is tested.
 */
const dir = mkdtempSync(join(tmpdir(), 'mailroom-fetch-'));
const certificate = writeSelfSignedCertificate(dir, 'files.test', 'DNS:files.test,IP:127.0.0.1');

const server: Server = createServer(
  { key: readFileSync(certificate.keyFile), cert: readFileSync(certificate.certFile) },
  (req, res) => {
    const port = (server.address() as AddressInfo).port;
    if (req.url === '/report.pdf')
      return void res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.7 fetched bytes');
    if (req.url === '/odd-type')
      return void res.writeHead(200, { 'content-type': `application/${'x'.repeat(1000)}` }).end('odd');
    if (req.url === '/not-a-type') return void res.writeHead(200, { 'content-type': 'text/html<script>' }).end('odd');
    if (req.url?.startsWith('/named/')) return void res.writeHead(200, { 'content-type': 'text/plain' }).end('named');
    if (req.url === '/big') return void res.writeHead(200).end('x'.repeat(5000));
    if (req.url === '/slow') return; // never answers
    if (req.url === '/to-ok') return void res.writeHead(302, { location: '/report.pdf' }).end();
    if (req.url === '/to-loopback')
      return void res.writeHead(302, { location: `https://127.0.0.2:${port}/report.pdf` }).end();
    if (req.url === '/to-private')
      return void res.writeHead(302, { location: `https://internal.test:${port}/report.pdf` }).end();
    if (req.url === '/to-metadata')
      return void res.writeHead(302, { location: 'https://169.254.169.254/latest/meta-data/' }).end();
    res.writeHead(404).end();
  },
);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
const port = (server.address() as AddressInfo).port;

const dns = await TestDnsServer.start();
dns.add(
  { type: 'A', name: 'files.test', address: '127.0.0.1' },
  { type: 'A', name: 'internal.test', address: '10.1.2.3' },
  { type: 'A', name: 'mixed.test', address: '93.184.216.34' },
  { type: 'A', name: 'mixed.test', address: '192.168.1.1' },
);
const strict = await startTestApp({ env: { MAILROOM_DNS_SERVERS: dns.address } });
const allowed = await startTestApp({
  env: {
    MAILROOM_DNS_SERVERS: dns.address,
    MAILROOM_ATTACHMENT_FETCH_ALLOW: '127.0.0.1',
    MAILROOM_ATTACHMENT_FETCH_CA_FILE: certificate.certFile,
    MAILROOM_ATTACHMENT_FETCH_TIMEOUT_MS: '2000',
    MAILROOM_ATTACHMENT_FETCH_MAX_BYTES: '2048',
  },
});
t.teardown(async () => {
  await strict.close();
  await allowed.close();
  await dns.close();
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function sender(app: TestApp, label: string) {
  const team = await app.createTeam(label, 'unlimited');
  await app.runtime.services.teams.setTier(team.teamId, 2);
  await addVerifiedDomain(app, dns, team.token, `${label}.test`);
  return team;
}
const withAttachment = (label: string, path: string) => ({
  from: `x@${label}.test`,
  to: 'a@example.net',
  subject: 's',
  text: 't',
  attachments: [{ path }],
});

t.test('the default configuration refuses the loopback server', async (t) => {
  const s = await sender(strict, 'strictfetch');
  for (const url of [
    `https://files.test:${port}/report.pdf`,
    `https://127.0.0.1:${port}/report.pdf`,
    `https://[::1]:${port}/report.pdf`,
  ]) {
    const body = errorShape(
      t,
      await request(strict.url, '/emails', {
        method: 'POST',
        token: s.token,
        body: withAttachment('strictfetch', url),
      }),
      422,
      'invalid_attachment',
    );
    t.match(body.message, /private, loopback or link-local/, url);
  }
});

t.test('with the test-only allow-list the fetch goes through and the file is attached', async (t) => {
  const s = await sender(allowed, 'okfetch');
  const res = await request(allowed.url, '/emails', {
    method: 'POST',
    token: s.token,
    body: withAttachment('okfetch', `https://files.test:${port}/report.pdf`),
  });
  t.equal(res.status, 200, res.text);
  const { email } = await allowed.runtime.services.emails.get(s.teamId, res.body.id);
  const mime = (await allowed.runtime.services.emails.mime(email))!.toString('utf8');
  t.match(mime, /Content-Type: application\/pdf; name=report.pdf/);
  t.match(mime, new RegExp(Buffer.from('%PDF-1.7 fetched bytes').toString('base64').slice(0, 20)));
  const redirected = await request(allowed.url, '/emails', {
    method: 'POST',
    token: s.token,
    body: withAttachment('okfetch', `https://files.test:${port}/to-ok`),
  });
  t.equal(redirected.status, 200, 'a redirect to an allowed place is followed');
});

t.test('what the remote server and URL say is only taken when it fits: content type, file name', async (t) => {
  const s = await sender(allowed, 'oddfetch');
  const cases: Array<[string, string, RegExp]> = [
    ['a 1000-character content type', '/odd-type', /Content-Type: application\/octet-stream; name=odd-type/],
    ['a content type that is no MIME type', '/not-a-type', /Content-Type: application\/octet-stream; name=not-a-type/],
    [
      'a malformed percent escape in the name',
      '/named/report%E0%A4%A.txt',
      /Content-Type: text\/plain;[\s\S]*report%E0%A4%A\.txt/,
    ],
    ['a 400-character name', `/named/${'n'.repeat(400)}.txt`, /Content-Type: text\/plain/],
    ['control characters in the name', '/named/a%0D%0Ab%00.txt', /Content-Type: text\/plain;[\s\S]*name=ab\.txt/],
  ];
  for (const [what, path, mimePattern] of cases) {
    const res = await request(allowed.url, '/emails', {
      method: 'POST',
      token: s.token,
      body: withAttachment('oddfetch', `https://files.test:${port}${path}`),
    });
    t.equal(res.status, 200, `${what}: ${res.text}`);
    if (res.status !== 200) continue;
    const { email } = await allowed.runtime.services.emails.get(s.teamId, res.body.id);
    t.match((await allowed.runtime.services.emails.mime(email))!.toString('utf8'), mimePattern, what);
    const [attachment] = (await request(allowed.url, `/emails/${res.body.id}/attachments`, { token: s.token })).body
      .data;
    t.ok(
      attachment.filename.length <= 255 && !/[\u0000-\u001f]/.test(attachment.filename),
      `${what}: stored name ${JSON.stringify(attachment.filename.slice(0, 40))}`,
    );
  }
});

t.test('refusals: private ranges, redirects to them, oversize, timeout, plain http', async (t) => {
  const s = await sender(allowed, 'badfetch');
  const cases: Array<[string, string, RegExp]> = [
    ['private range by name', `https://internal.test:${port}/report.pdf`, /10\.1\.2\.3/],
    ['private range by address', 'https://192.168.0.10/x', /private/],
    ['a name with one private address', 'https://mixed.test/x', /192\.168\.1\.1/],
    ['redirect to loopback outside the allow-list', `https://files.test:${port}/to-loopback`, /127\.0\.0\.2/],
    ['redirect to a private name', `https://files.test:${port}/to-private`, /10\.1\.2\.3/],
    ['redirect to link-local metadata', `https://files.test:${port}/to-metadata`, /169\.254\.169\.254/],
    ['oversize', `https://files.test:${port}/big`, /larger than 2048 bytes/],
    ['timeout', `https://files.test:${port}/slow`, /timed out/],
    ['plain http', `http://files.test:${port}/report.pdf`, /only https/],
    ['unknown host', 'https://nowhere.test/x', /does not resolve/],
    ['not found', `https://files.test:${port}/missing`, /404/],
  ];
  for (const [what, url, reason] of cases) {
    const body = errorShape(
      t,
      await request(allowed.url, '/emails', { method: 'POST', token: s.token, body: withAttachment('badfetch', url) }),
      422,
      'invalid_attachment',
    );
    t.match(body.message, reason, what);
    t.equal(body.errors?.[0]?.path, 'attachments.0.path');
  }
  t.equal(
    Number((await allowed.runtime.db.knex('emails').where({ team_id: s.teamId }).count({ n: '*' }))[0]!.n),
    0,
    'nothing accepted',
  );
});
