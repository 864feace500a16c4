import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import t from 'tap';
import { skipWithoutSwaks } from '../helpers/swaks.js';
import { startInboundServer, type InboundServer } from '../../inbound/inbound-server.js';
import { waitUntil } from '../helpers/inbound-process.js';
import { receivingDomain, storedRaw } from '../helpers/received-mail.js';
import { writeSelfSignedCertificate } from '../helpers/self-signed-certificate.js';
import { SmtpDialogue } from '../helpers/smtp-dialogue.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * The inbound MX (a real Haraka process with our plugins) with STARTTLS on a self-signed
 * certificate, a recipient limit of 3 and a per-client connection limit of 2, spoken to by real
 * clients (swaks, nodemailer, raw SMTP); and, last, our own failure (the database gone from
 * under the bridge) answered 451 4.3.0, never 5xx.
 */
const certDir = mkdtempSync(join(tmpdir(), 'mailroom-inbound-tls-'));
const cert = writeSelfSignedCertificate(certDir, 'mx.inbound.test', 'DNS:mx.inbound.test,IP:127.0.0.1');
const certPem = readFileSync(cert.certFile);
const app = await startTestApp({
  env: { MAILROOM_INBOUND_CERT_FILE: cert.certFile, MAILROOM_INBOUND_KEY_FILE: cert.keyFile },
  config: {
    inbound: { maxRecipients: 3, maxConnectionsPerClient: 2 },
    // Domain look-ups stay cached a while, so the last test can reach DATA with the database gone.
    api: { lookupCacheMs: 60_000 },
  },
});
let mx: InboundServer | undefined;
const open: SmtpDialogue[] = [];
t.teardown(async () => {
  for (const smtp of open) smtp.close();
  // Each step on its own: one failing (the last test broke the database) must not skip the rest.
  await mx?.close().catch((err: unknown) => t.comment(`closing the MX: ${String(err)}`));
  await app.close().catch((err: unknown) => t.comment(`closing the app: ${String(err)}`));
  rmSync(certDir, { recursive: true, force: true });
});
const team = await app.createTeam('TLS and limits', 'unlimited');
const domain = await receivingDomain(app, team.teamId);
mx = await startInboundServer(app.runtime);
const port = mx.port;

async function dialogue(): Promise<SmtpDialogue> {
  const smtp = await SmtpDialogue.open(port);
  open.push(smtp);
  return smtp;
}

/** QUIT, then wait for the server to close: Haraka has run its disconnect hooks by then. */
async function quit(smtp: SmtpDialogue): Promise<void> {
  await smtp.command('QUIT').catch(() => undefined);
  await smtp.reply(2_000).catch(() => undefined); // rejects once the connection is closed
  smtp.close();
}

const stored = async (subject: string) =>
  (await app.runtime.services.receivedEmails.list(team.teamId, { search: subject })).emails.filter(
    (email) => email.subject === subject,
  );
const queuedId = (response: string) => /250 .*queued as ([0-9a-f-]{36})/.exec(response)?.[1];

t.test('STARTTLS with the configured certificate', async (t) => {
  t.test('EHLO advertises STARTTLS', async (t) => {
    const smtp = await dialogue();
    t.equal((await smtp.reply()).code, 220);
    const ehlo = await smtp.command('EHLO client.test');
    t.equal(ehlo.code, 250);
    t.match(ehlo.text, /^STARTTLS$/m, `STARTTLS is offered: ${ehlo.text.replace(/\n/g, ' | ')}`);
    await quit(smtp);
  });

  t.test(
    'swaks --tls delivers to a receiving address',
    {
      skip: await skipWithoutSwaks(),
    },
    async (t) => {
      const subject = `via swaks ${Math.random().toString(36).slice(2, 8)}`;
      const { stdout } = await promisify(execFile)('swaks', [
        '--server',
        `127.0.0.1:${port}`,
        '--tls',
        '--ehlo',
        'client.test',
        '--from',
        'someone@sender.test',
        '--to',
        `tls@${domain}`,
        '--header',
        `Subject: ${subject}`,
        '--body',
        'hello over TLS',
      ]);
      t.match(stdout, /-> STARTTLS\s+<-\s+220 /, 'STARTTLS was answered 220');
      t.match(stdout, /=== TLS started/, 'and the session is encrypted');
      t.match(stdout, /=== TLS peer DN="\/CN=mx\.inbound\.test"/, 'with the configured certificate');
      const id = /<~\s+250 .*queued as ([0-9a-f-]{36})/.exec(stdout)?.[1];
      t.ok(id, 'swaks saw the 250 with the id over TLS');
      const [email] = await stored(subject);
      t.ok(email, 'the message is stored');
      t.same(email?.receivedFor, [`tls@${domain}`]);
      t.equal(email?.id, id, 'under the id of the 250');
      const raw = storedRaw(app.runtime.config.dataDir, email!.rawBlob!)!.toString('utf8');
      t.match(raw, /^Received: [\s\S]*with ESMTPS/m, 'the Received header records the TLS session');
      t.match(raw, /hello over TLS/);
    },
  );

  t.test('nodemailer with requireTLS verifies the certificate against its CA', async (t) => {
    const subject = `verified tls ${Math.random().toString(36).slice(2, 8)}`;
    const verified = nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      secure: false,
      requireTLS: true,
      tls: { ca: certPem },
    });
    const info = await verified.sendMail({
      from: 'someone@sender.test',
      to: `verified@${domain}`,
      subject,
      text: 'the certificate verified',
    });
    verified.close();
    const id = queuedId(info.response);
    t.ok(id, `accepted over verified TLS: ${info.response}`);
    const [email] = await stored(subject);
    t.equal(email?.id, id, 'stored under the id of the 250');
    t.ok(storedRaw(app.runtime.config.dataDir, email!.rawBlob!), 'with its raw message');

    const untrusting = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, requireTLS: true });
    const refused = await untrusting
      .sendMail({ from: 'someone@sender.test', to: `verified@${domain}`, subject: 'never', text: 'x' })
      .then(
        () => null,
        (err: Error) => err,
      );
    untrusting.close();
    t.match(
      refused?.message,
      /self[- ]signed|certificate/i,
      'without the CA the client refuses the certificate: it is the one configured, verified for real',
    );
  });
  t.end();
});

t.test('the 4th recipient gets 452 4.5.3; the message goes to the first 3', async (t) => {
  const subject = `four recipients ${Math.random().toString(36).slice(2, 8)}`;
  const smtp = await dialogue();
  t.equal((await smtp.reply()).code, 220);
  t.equal((await smtp.command('EHLO client.test')).code, 250);
  t.equal((await smtp.command('MAIL FROM:<someone@sender.test>')).code, 250);
  for (const n of [1, 2, 3]) t.equal((await smtp.command(`RCPT TO:<r${n}@${domain}>`)).code, 250, `recipient ${n}`);
  const fourth = await smtp.command(`RCPT TO:<r4@${domain}>`);
  t.equal(fourth.code, 452, `the 4th: ${fourth.code} ${fourth.text}`);
  t.match(fourth.text, /^4\.5\.3 /, 'enhanced status 4.5.3');
  t.equal((await smtp.command('DATA')).code, 354);
  smtp.send(`From: someone@sender.test\r\nTo: r1@${domain}\r\nSubject: ${subject}\r\n\r\nfour named\r\n.\r\n`);
  const done = await smtp.reply();
  t.equal(done.code, 250, done.text);
  const [email] = await stored(subject);
  t.same(
    email?.receivedFor,
    [1, 2, 3].map((n) => `r${n}@${domain}`),
    'stored for the first 3 only',
  );
  t.equal(email?.id, queuedId(`250 ${done.text}`));

  // The limit is per message: the next transaction on the same connection takes 3 again.
  t.equal((await smtp.command('MAIL FROM:<someone@sender.test>')).code, 250);
  for (const n of [4, 5, 6]) t.equal((await smtp.command(`RCPT TO:<r${n}@${domain}>`)).code, 250, `again ${n}`);
  t.equal((await smtp.command(`RCPT TO:<r7@${domain}>`)).code, 452);
  await quit(smtp);
});

t.test('a 3rd simultaneous connection gets 421 and is closed; after one closes, a new one is accepted', async (t) => {
  // Two connections at once. A connection of an earlier test the server has not yet counted
  // out would make the 2nd one a 421 too: then wait and try again (the 3rd is the assertion).
  let first!: SmtpDialogue;
  let second!: SmtpDialogue;
  await waitUntil(async () => {
    first = await dialogue();
    const a = await first.reply();
    second = await dialogue();
    const b = await second.reply();
    if (a.code === 220 && b.code === 220) return true;
    first.close();
    second.close();
    return false;
  }, 'two connections to be accepted');
  t.pass('two simultaneous connections are accepted');

  const third = await dialogue();
  const refused = await third.reply();
  t.equal(refused.code, 421, `the 3rd: ${refused.code} ${refused.text}`);
  t.match(refused.text, /^4\.7\.0 Too many connections/);
  const closed = await third.reply(5_000).then(
    (reply) => `another reply: ${reply.code}`,
    (err: Error) => err.message,
  );
  t.match(closed, /connection closed/, 'and the server closes it');

  await quit(first);
  const fourth = await dialogue();
  t.equal((await fourth.reply()).code, 220, 'after one closes, a new connection is accepted');
  t.equal((await fourth.command('EHLO client.test')).code, 250, 'and served');
  const fifth = await dialogue();
  t.equal((await fifth.reply()).code, 421, 'the count is exact: with 2 open again, the next is refused');
  fifth.close();
  await quit(second);
  await quit(fourth);
});

// Last: this breaks the database under the bridge for good (teardown copes).
t.test('our failure is 451 4.3.0, never 5xx', async (t) => {
  // Warm the cache with the receiving domain, so a RCPT to it can pass and reach DATA.
  const warm = await dialogue();
  t.equal((await warm.reply()).code, 220);
  t.equal((await warm.command('EHLO client.test')).code, 250);
  t.equal((await warm.command('MAIL FROM:<someone@sender.test>')).code, 250);
  t.equal((await warm.command(`RCPT TO:<warm@${domain}>`)).code, 250);
  await quit(warm);

  await app.runtime.db.knex.destroy(); // the bridge's database is gone

  const smtp = await dialogue();
  const replies: Array<{ step: string; code: number; text: string }> = [];
  const say = async (step: string, line: string) => {
    const reply = await smtp.command(line);
    replies.push({ step, ...reply });
    return reply;
  };
  t.equal((await smtp.reply()).code, 220);
  t.equal((await say('EHLO', 'EHLO client.test')).code, 250);
  t.equal((await say('MAIL', 'MAIL FROM:<someone@sender.test>')).code, 250);
  // A domain never looked up: the RCPT decision needs the database.
  const unknown = await say('RCPT (uncached)', `RCPT TO:<someone@never-seen-${Date.now()}.test>`);
  t.equal(unknown.code, 451, `RCPT needing the database: ${unknown.code} ${unknown.text}`);
  t.match(unknown.text, /^4\.3\.0 /);

  // The receiving domain from the cache: RCPT may pass, then storing the message fails.
  const cached = await say('RCPT (cached)', `RCPT TO:<after@${domain}>`);
  if (cached.code === 250) {
    t.equal((await say('DATA', 'DATA')).code, 354);
    smtp.send(`From: someone@sender.test\r\nTo: after@${domain}\r\nSubject: no database\r\n\r\nbody\r\n.\r\n`);
    const end = await smtp.reply();
    replies.push({ step: 'end of DATA', ...end });
    t.equal(end.code, 451, `end of DATA without the database: ${end.code} ${end.text}`);
    t.match(end.text, /^4\.3\.0 /, 'enhanced status 4.3.0');
  } else {
    t.comment('the cached domain had expired: the RCPT itself needed the database');
    t.equal(cached.code, 451, `RCPT needing the database: ${cached.code} ${cached.text}`);
    t.match(cached.text, /^4\.3\.0 /);
  }
  t.same(
    replies.filter((reply) => reply.code >= 500),
    [],
    'no reply of the session is a 5xx',
  );
  await quit(smtp);
});
