import { connect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { Redis } from 'ioredis';
import nodemailer from 'nodemailer';
import t from 'tap';
import { startSubmissionServer, type SubmissionServer } from '../../submission/submission-server.js';
import { APP_USES_REDIS, TEST_REDIS_URL } from '../helpers/test-database.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * AUTH on the submission port: advertised only where it may be used (after STARTTLS unless
 * allowInsecureAuth), and failed attempts limited per credential and per client address across
 * connections (and processes, through the shared store), with real SMTP clients.
 */
const PER_SOURCE = 20;

async function start(config: Record<string, unknown>): Promise<{ app: TestApp; server: SubmissionServer }> {
  const app = await startTestApp({ config: { submission: config } });
  const server = await startSubmissionServer(app.runtime);
  t.teardown(async () => {
    await server.close();
    await app.close();
  });
  return { app, server };
}

const { app, server } = await start({ authFailuresPerSource: PER_SOURCE });
const { token } = await app.createTeam('Submitters', 'unlimited');

/** One AUTH over a new connection (STARTTLS first), from `localAddress`: 'ok' or the server's reply. */
const attempt = (pass: string, localAddress = '127.0.0.1') =>
  nodemailer
    .createTransport({
      host: '127.0.0.1',
      port: server.port,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
      auth: { user: 'anyone', pass },
      localAddress,
    })
    .verify()
    .then(
      () => 'ok',
      (err: { response?: string; message: string }) => err.response ?? err.message,
    );

/** Reads complete SMTP replies (`code` and lines) from a socket, plain or TLS. */
function replies(socket: Socket | TLSSocket) {
  let buffer = '';
  let wake: (() => void) | null = null;
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    wake?.();
  };
  socket.on('data', onData);
  return {
    async next(): Promise<{ code: number; lines: string[] }> {
      for (;;) {
        const match = /^((?:\d{3}-[^\r\n]*\r\n)*)(\d{3}) ?([^\r\n]*)\r\n/.exec(buffer);
        if (match) {
          buffer = buffer.slice(match[0].length);
          const lines = [...match[1]!.split('\r\n').filter(Boolean), `${match[2]} ${match[3]}`].map((l) => l.slice(4));
          return { code: Number(match[2]), lines };
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 200);
        });
      }
    },
    detach: () => socket.off('data', onData),
  };
}

/** EHLO before and after STARTTLS on the plain port, and what MAIL and AUTH get before it. */
async function plainPortDialogue(port: number) {
  const socket = connect({ port, host: '127.0.0.1' });
  await new Promise((resolve) => socket.once('connect', resolve));
  const plain = replies(socket);
  const send = async (line: string) => {
    socket.write(`${line}\r\n`);
    return plain.next();
  };
  t.equal((await plain.next()).code, 220);
  const before = await send('EHLO client.test');
  const mail = await send('MAIL FROM:<a@client.test>');
  const auth = await send(`AUTH PLAIN ${Buffer.from(`\0x\0${token}`).toString('base64')}`);
  const starttls = await send('STARTTLS');
  plain.detach();
  const secure = tlsConnect({ socket, rejectUnauthorized: false });
  await new Promise((resolve) => secure.once('secureConnect', resolve));
  const tls = replies(secure);
  secure.write('EHLO client.test\r\n');
  const after = await tls.next();
  secure.write(`AUTH PLAIN ${Buffer.from(`\0x\0${token}`).toString('base64')}\r\n`);
  const authAfter = await tls.next();
  secure.destroy();
  return { before, mail, auth, starttls, after, authAfter };
}

t.test('AUTH is advertised only after STARTTLS when it needs STARTTLS', async (t) => {
  const d = await plainPortDialogue(server.port);
  t.equal(d.before.code, 250);
  t.notOk(
    d.before.lines.some((l) => /^AUTH\b/i.test(l)),
    `no AUTH before STARTTLS: ${d.before.lines.join(' | ')}`,
  );
  t.ok(d.before.lines.includes('STARTTLS'), 'STARTTLS is offered');
  t.match(`${d.mail.code} ${d.mail.lines.join(' ')}`, /^530 5\.7\.0 .*STARTTLS/, 'MAIL before STARTTLS: 530');
  t.ok(d.auth.code >= 500 && d.auth.code < 600, `AUTH before STARTTLS is refused (${d.auth.code})`);
  t.equal(d.starttls.code, 220);
  t.equal(d.after.code, 250);
  t.ok(d.after.lines.includes('AUTH PLAIN LOGIN'), `AUTH after STARTTLS: ${d.after.lines.join(' | ')}`);
  t.equal(d.authAfter.code, 235, 'and it works there');
});

t.test('with allowInsecureAuth AUTH is advertised at once and works without TLS', async (t) => {
  const insecure = await start({ allowInsecureAuth: true });
  const socket = connect({ port: insecure.server.port, host: '127.0.0.1' });
  await new Promise((resolve) => socket.once('connect', resolve));
  t.teardown(() => socket.destroy());
  const r = replies(socket);
  t.equal((await r.next()).code, 220);
  socket.write('EHLO client.test\r\n');
  const ehlo = await r.next();
  t.ok(ehlo.lines.includes('AUTH PLAIN LOGIN'), `AUTH at once: ${ehlo.lines.join(' | ')}`);
  const { token: key } = await insecure.app.createTeam('Insecure', 'unlimited');
  socket.write(`AUTH PLAIN ${Buffer.from(`\0x\0${key}`).toString('base64')}\r\n`);
  t.equal((await r.next()).code, 235);
});

t.test('failed AUTH is limited per credential across connections; 454 4.7.0 past it', async (t) => {
  const wrong = 're_wrong_key_guessed_0000000000000000';
  const answers = [];
  for (let i = 0; i < 12; i++) answers.push(await attempt(wrong));
  for (const [i, answer] of answers.slice(0, 10).entries())
    t.match(answer, /^535 5\.7\.8 /, `failure ${i + 1}, each on a new connection, is checked: ${answer}`);
  for (const answer of answers.slice(10))
    t.match(answer, /^454 4\.7\.0 Too many failed authentication attempts.*try again/i, `then: ${answer}`);
  t.equal(await attempt(token), 'ok', 'a correct key from the same address still works (its limit is higher)');
  t.equal(await attempt(token, '127.0.0.2'), 'ok', 'and from another address');

  if (APP_USES_REDIS) {
    const redis = new Redis(TEST_REDIS_URL);
    t.teardown(() => redis.quit());
    const keys = await redis.keys(`${app.runtime.config.redis.keyPrefix}*`);
    t.ok(
      keys.some((key) => key.includes('submission:auth')),
      `the counts live in Redis, shared by every process: ${keys.join(', ')}`,
    );
    t.notOk(
      keys.some((key) => key.includes(wrong) || key.includes(token)),
      'no credential is kept in clear',
    );
  }
});

t.test('failed AUTH is limited per client address whatever the credential', async (t) => {
  const source = '127.0.0.3';
  for (let i = 0; i < PER_SOURCE; i++)
    t.match(await attempt(`re_guess_${i}_0000000000000000`, source), /^535 /, `guess ${i + 1} is checked`);
  t.match(await attempt('re_guess_next_0000000000000000', source), /^454 4\.7\.0 /, 'the next guess is not');
  t.match(
    await attempt(token, source),
    /^454 4\.7\.0 /,
    'nor is a correct key from that address: the credential is not even checked',
  );
  t.equal(await attempt(token, '127.0.0.4'), 'ok', 'a correct key from another address works');
});
