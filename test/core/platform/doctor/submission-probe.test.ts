import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { runDoctor } from '../../../../core/platform/doctor/doctor.js';
import type { CheckResult } from '../../../../core/platform/doctor/doctor.types.js';
import { checkStarttls } from '../../../../core/platform/doctor/submission-checks.js';
import { startSubmissionServer } from '../../../../submission/submission-server.js';
import { writeSelfSignedCertificate } from '../../../helpers/self-signed-certificate.js';
import { startTestApp, type TestApp } from '../../../helpers/test-app.js';
import { cliEnvFor } from '../../../helpers/spawn-mailroom.js';

/**
 * Issue 32: doctor said "submission offers no STARTTLS" while it offered it. The doctor now
 * talks to the submission server as a client does: greeting, multi-line EHLO, STARTTLS, EHLO
 * again, AUTH (offered only after STARTTLS), and the implicit-TLS port; against the real server.
 */
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'mailroom-probe-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const cert = writeSelfSignedCertificate(dir, 'submit.mailroom.test', 'DNS:submit.mailroom.test', 90);

/** A test app with its submission server on free ports; `config` as startTestApp takes it. */
async function withSubmission(config: Record<string, unknown>) {
  const app = await startTestApp({ config: { submission: { port: 0, tlsPort: 0, ...config } } });
  const server = await startSubmissionServer(app.runtime);
  t.teardown(async () => {
    await server.close();
    await app.close();
  });
  const target = { host: '127.0.0.1', port: server.port, tlsPort: server.tlsPort };
  return { app, server, target };
}

const doctorOf = (app: TestApp, target: { host: string; port: number; tlsPort: number | null }) =>
  runDoctor({
    config: app.runtime.config,
    lookup: app.runtime.lookup,
    ptr: async () => ({ kind: 'none' }),
    db: app.runtime.db,
    now: () => new Date(),
    dnsblZones: [],
    submission: target,
  });
const find = (results: CheckResult[], check: string) => results.find((entry) => entry.check === check);

t.test('no certificate: STARTTLS is offered (with the built-in certificate), and doctor says so', async (t) => {
  const { app, target } = await withSubmission({});
  t.equal(target.tlsPort, null, 'no implicit-TLS port without a certificate');
  const results = await doctorOf(app, target);
  t.match(find(results, 'submission_starttls'), {
    subject: `127.0.0.1:${target.port}`,
    status: 'warn',
    detail:
      /^STARTTLS offered; AUTH PLAIN LOGIN after it, not before; .*built-in one, whose private key is public.*submission\.certFile and submission\.keyFile/,
  });
  t.equal(find(results, 'submission_implicit_tls'), undefined, 'the closed implicit-TLS port is not probed');
  const certificate = find(results, 'submission_certificate')!;
  t.equal(certificate.status, 'warn');
  t.notMatch(certificate.detail, /offers no STARTTLS/, 'no claim that STARTTLS is missing');
  t.match(certificate.detail, /STARTTLS uses smtp-server's built-in certificate/);
});

t.test('a certificate: STARTTLS and the implicit-TLS port present it, AUTH after TLS only', async (t) => {
  const { app, target } = await withSubmission(cert);
  t.type(target.tlsPort, 'number');
  const results = await doctorOf(app, target);
  t.match(find(results, 'submission_starttls'), {
    status: 'ok',
    detail: `STARTTLS offered; AUTH PLAIN LOGIN after it, not before; presents ${cert.certFile}`,
  });
  t.match(find(results, 'submission_implicit_tls'), {
    subject: `127.0.0.1:${target.tlsPort}`,
    status: 'ok',
    detail: `TLS, AUTH PLAIN LOGIN; presents ${cert.certFile}`,
  });
});

t.test('the real command probes the configured ports', async (t) => {
  const { app, target } = await withSubmission(cert);
  const config = app.runtime.config;
  const { stdout } = await run(process.execPath, ['bin/mailroom.js', 'doctor', '--json', '--dnsbl-zones', ''], {
    env: cliEnvFor(config, {
      MAILROOM_DNS_SERVERS: '127.0.0.1:1',
      MAILROOM_SUBMISSION_PORT: String(target.port),
      MAILROOM_SUBMISSION_TLS_PORT: String(target.tlsPort),
    }),
  }).catch((err: { stdout: string }) => err);
  const results = JSON.parse(stdout) as CheckResult[];
  t.match(find(results, 'submission_starttls'), { status: 'ok', detail: /^STARTTLS offered/ });
  t.match(find(results, 'submission_implicit_tls'), { status: 'ok' });
});

/** A scripted SMTP server: `script(socket)` writes its replies however it likes. */
async function scripted(onLine: (line: string, socket: Socket) => void, greeting: (socket: Socket) => void) {
  const server: Server = createServer((socket) => {
    greeting(socket);
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      let end: number;
      while ((end = buffer.indexOf('\n')) >= 0) {
        onLine(buffer.slice(0, end).replace(/\r$/, ''), socket);
        buffer = buffer.slice(end + 1);
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as { port: number }).port;
}

/** Writes `text` a few bytes at a time, so replies arrive split across packets. */
async function trickle(socket: Socket, text: string) {
  for (let i = 0; i < text.length; i += 5) {
    socket.write(text.slice(i, i + 5));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const settings = (allowInsecureAuth = false) => ({ allowInsecureAuth }) as Parameters<typeof checkStarttls>[0];

t.test('multi-line EHLO replies split across packets are read whole', async (t) => {
  const port = await scripted(
    (line, socket) => {
      if (line.startsWith('EHLO'))
        void trickle(socket, '250-mx.test Hello\r\n250-SIZE 1000\r\n250-8BITMIME\r\n250 AUTH PLAIN LOGIN\r\n');
      else if (line === 'QUIT') socket.end('221 bye\r\n');
    },
    (socket) => void trickle(socket, '220-mx.test ESMTP\r\n220 more greeting\r\n'),
  );
  const found = await checkStarttls(settings(), { host: '127.0.0.1', port, tlsPort: null }, 3000);
  t.match(found, {
    status: 'fail',
    detail: 'its EHLO reply offers no STARTTLS: passwords and mail would cross the network in clear',
  });
});

t.test('AUTH offered before STARTTLS fails unless allowInsecureAuth', async (t) => {
  const port = await scripted(
    (line, socket) => {
      // Greeting and EHLO answered in one packet with the last line first split in two.
      if (line.startsWith('EHLO')) socket.write('250-mx.test\r\n250-AUTH PLAIN\r\n250 STAR');
      if (line.startsWith('EHLO')) setTimeout(() => socket.write('TTLS\r\n'), 20);
    },
    (socket) => socket.write('220 mx.test ESMTP\r\n'),
  );
  t.match(await checkStarttls(settings(), { host: '127.0.0.1', port, tlsPort: null }, 3000), {
    status: 'fail',
    detail: /offers AUTH before STARTTLS/,
  });
});

t.test('nothing listening is a warning, naming the settings', async (t) => {
  const port = await scripted(
    () => undefined,
    () => undefined,
  );
  // A port nothing listens on: one the system just handed out, now closed.
  const closed = await new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const free = (probe.address() as { port: number }).port;
      probe.close(() => resolve(free));
    });
  });
  t.not(closed, port);
  t.match(await checkStarttls(settings(), { host: '0.0.0.0', port: closed, tlsPort: null }, 3000), {
    subject: `127.0.0.1:${closed}`,
    status: 'warn',
    detail: /nothing answers at 127\.0\.0\.1:\d+ \(ECONNREFUSED\).*submission\.port/,
  });
});
