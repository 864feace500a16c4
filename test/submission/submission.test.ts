import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { authenticate } from 'mailauth';
import nodemailer from 'nodemailer';
import t from 'tap';
import { skipWithoutSwaks } from '../helpers/swaks.js';
import { startSubmissionServer, type SubmissionServer } from '../../submission/submission-server.js';
import { request } from '../helpers/http.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';
import { startTestApp } from '../helpers/test-app.js';
import { writeSelfSignedCertificate } from '../helpers/self-signed-certificate.js';
import { createDomainSchema } from '../../core/sending/domains/domain.schemas.js';

/**
 * SMTP submission with real clients (nodemailer, swaks) against the real server, the message
 * going through the same acceptance as POST /emails and on through the MTA to a sink: AUTH with
 * an API key after STARTTLS, Bcc from the envelope, the email id in the 250 reply, the request
 * log, and every refusal mapped to its SMTP code.
 */
const fx = await startMtaFixture({ config: { submission: { maxMessageBytes: 64 * 1024 } } });
fx.dns.add(
  { type: 'MX', name: 'dest.test', exchange: 'mx.dest.test', priority: 10 },
  { type: 'A', name: 'mx.dest.test', address: '127.0.0.10' },
);
const server: SubmissionServer = await startSubmissionServer(fx.app.runtime);
t.teardown(async () => {
  await server.close();
  await fx.close();
});
const [sink] = fx.sinks as [NonNullable<(typeof fx.sinks)[0]>];

const transport = (pass: string, options: Record<string, unknown> = {}) =>
  nodemailer.createTransport({
    host: '127.0.0.1',
    port: server.port,
    secure: false,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
    auth: { user: 'anything', pass },
    ...options,
  });
const keyOf = async (body: Record<string, unknown>) =>
  (await request(fx.app.url, '/api-keys', { method: 'POST', token: fx.token, body })).body as {
    id: string;
    token: string;
  };
const queuedId = (response: string) => /^250 2\.0\.0 Ok: queued as ([0-9a-f-]{36})$/.exec(response)?.[1];
const refusal = async (promise: Promise<unknown>) =>
  (await promise
    .then(() => ({ responseCode: 0, response: 'accepted' }))
    .catch((err: { responseCode?: number; response?: string }) => err)) as { responseCode: number; response: string };

t.test(
  'STARTTLS, AUTH PLAIN with an API key: accepted as an email, Bcc from the envelope, delivered and signed',
  async (t) => {
    const key = await keyOf({ name: 'smtp', permission: 'sending_access' });
    const info = await transport(key.token).sendMail({
      from: 'Sender Name <hello@sender.test>',
      to: 'Alice <alice@dest.test>',
      cc: 'carol@dest.test',
      bcc: 'hidden@dest.test',
      subject: 'Über SMTP',
      text: 'Plain body',
      html: '<p>HTML body</p>',
      headers: {
        'X-Campaign': 'smtp-test',
        'In-Reply-To': '<earlier@sender.test>',
        'List-Unsubscribe': '<mailto:theirs@sender.test>',
        Received: 'from laptop by relay',
      },
      attachments: [{ filename: 'note.txt', content: 'attached' }],
    });
    const id = queuedId(info.response);
    t.ok(id, `the 250 names the email: ${info.response}`);

    const email = (await request(fx.app.url, `/emails/${id}`, { token: fx.token })).body;
    t.match(email, {
      id,
      from: '"Sender Name" <hello@sender.test>',
      subject: 'Über SMTP',
      text: 'Plain body',
      html: '<p>HTML body</p>',
    });
    t.same(email.to, ['"Alice" <alice@dest.test>']);
    t.same(email.cc, ['carol@dest.test']);
    t.same(email.bcc, ['hidden@dest.test'], 'the envelope recipient no header names is the Bcc');
    const attachments = (await request(fx.app.url, `/emails/${id}/attachments`, { token: fx.token })).body.data;
    t.match(attachments, [{ filename: 'note.txt', size: 8 }]);

    await fx.waitFor(async () => {
      const deliveries = await fx.app.runtime.services.deliveries.repository.ofEmail(id!);
      return deliveries.length === 3 && deliveries.every((d) => d.state === 'delivered');
    }, 'the three deliveries');
    const arrived = sink.messages.filter((m) => m.data.toString().includes(`Message-ID: <${id}@`));
    t.same(arrived.flatMap((m) => m.to).sort(), ['alice@dest.test', 'carol@dest.test', 'hidden@dest.test']);
    const wire = arrived[0]!.data.toString();
    t.match(wire, /X-Campaign: smtp-test/, "the caller's own headers travel");
    t.match(wire, /In-Reply-To: <earlier@sender\.test>/);
    t.notMatch(
      wire,
      /theirs@sender\.test|from laptop by relay/,
      'headers the appliance writes itself are dropped from a submitted message',
    );
    t.notMatch(wire, /hidden@dest\.test/, 'Bcc is never a header');
    const result = await authenticate(arrived[0]!.data, {
      resolver: fx.resolver as never,
      ip: '127.0.0.2',
      helo: 'out2.mailroom.test',
      sender: arrived[0]!.from,
      mta: 'mx.dest.test',
    } as never);
    t.equal(
      (result as { dkim: { results: Array<{ status: { result: string } }> } }).dkim.results[0]!.status.result,
      'pass',
      'DKIM-signed like any send',
    );

    const logs = (await request(fx.app.url, '/logs?search=/emails', { token: fx.token })).body.data as Array<{
      id: string;
      method: string;
      response_status: number;
      user_agent: string;
    }>;
    const entry = logs.find((log) => log.method === 'SMTP');
    t.match(
      entry,
      { response_status: 200, user_agent: /^smtp-submission \(/ },
      'the request log records the submission',
    );
    t.equal(
      (await request(fx.app.url, `/logs/${entry!.id}`, { token: fx.token })).body.email_id,
      id,
      'linked to its email',
    );
  },
);

t.test('AUTH LOGIN works too; several messages on one connection', async (t) => {
  const key = await keyOf({ name: 'login', permission: 'sending_access' });
  const client = transport(key.token, { pool: true, maxConnections: 1, authMethod: 'LOGIN' });
  t.teardown(() => client.close());
  const answers = await Promise.all(
    [1, 2, 3].map((n) =>
      client.sendMail({ from: 'hello@sender.test', to: 'alice@dest.test', subject: `n ${n}`, text: 'x' }),
    ),
  );
  t.equal(new Set(answers.map((a) => queuedId(a.response))).size, 3, 'three emails');
});

t.test('AUTH is refused before STARTTLS (allowInsecureAuth off), and with a bad key 535 5.7.8', async (t) => {
  const key = await keyOf({ name: 'plain', permission: 'sending_access' });
  const insecure = await refusal(
    transport(key.token, { requireTLS: false, ignoreTLS: true }).sendMail({
      from: 'hello@sender.test',
      to: 'alice@dest.test',
      subject: 's',
      text: 'x',
    }),
  );
  // AUTH is not even advertised before STARTTLS, so the client goes on without it: refused at MAIL.
  t.equal(insecure.responseCode, 530, `no AUTH in plain text: ${insecure.response}`);
  t.match(insecure.response, /^530 5\.7\.0 Must issue a STARTTLS command first/);
  const bad = await refusal(
    transport('svc_not_a_key').sendMail({ from: 'hello@sender.test', to: 'alice@dest.test', subject: 's', text: 'x' }),
  );
  t.equal(bad.responseCode, 535, bad.response);
  t.match(bad.response, /^535 5\.7\.8 Authentication failed: API key is invalid/);
});

t.test('a key revoked during a session stops at its next message', async (t) => {
  const key = await keyOf({ name: 'revoke', permission: 'sending_access' });
  const client = transport(key.token, { pool: true, maxConnections: 1 });
  t.teardown(() => client.close());
  t.ok(
    queuedId(
      (await client.sendMail({ from: 'hello@sender.test', to: 'alice@dest.test', subject: 'before', text: 'x' }))
        .response,
    ),
  );
  await request(fx.app.url, `/api-keys/${key.id}`, { method: 'DELETE', token: fx.token });
  const after = await refusal(
    client.sendMail({ from: 'hello@sender.test', to: 'alice@dest.test', subject: 'after', text: 'x' }),
  );
  t.equal(after.responseCode, 535, after.response);
});

t.test('refusals map to SMTP codes, as POST /emails would refuse', async (t) => {
  const key = await keyOf({ name: 'rules', permission: 'sending_access' });
  const send = (mail: Record<string, unknown>) =>
    refusal(
      transport(key.token).sendMail({
        from: 'hello@sender.test',
        to: 'alice@dest.test',
        subject: 's',
        text: 'x',
        ...mail,
      }),
    );

  const unverified = await send({ from: 'someone@elsewhere.test' });
  t.equal(unverified.responseCode, 550);
  t.match(unverified.response, /^550 5\.7\.1 /, 'a from domain that is not verified');

  const stranger = await send({
    envelope: { from: 'hello@sender.test', to: ['alice@dest.test'] },
    to: 'alice@dest.test, mallory@dest.test',
  });
  t.match(stranger.response, /^550 5\.6\.0 .*mallory@dest\.test/, 'a To address that is not an envelope recipient');

  const noFrom = await refusal(
    transport(key.token).sendMail({
      envelope: { from: 'hello@sender.test', to: ['alice@dest.test'] },
      raw: 'To: alice@dest.test\r\nSubject: no from\r\n\r\nbody\r\n',
    }),
  );
  t.match(noFrom.response, /^550 5\.6\.0 .*from/i, 'no From header');

  const eightBit = await refusal(
    transport(key.token).sendMail({
      envelope: { from: 'hello@sender.test', to: ['alice@dest.test'] },
      raw: Buffer.from('From: hello@sender.test\r\nTo: alice@dest.test\r\nSubject: Grüße\r\n\r\nbody\r\n', 'utf8'),
    }),
  );
  t.match(eightBit.response, /^550 5\.6\.0 .*8-bit/, '8-bit header bytes without SMTPUTF8');
  const utf8 = await transport(key.token).sendMail({
    envelope: { from: 'hello@sender.test', to: ['zoë@dest.test'] },
    raw: Buffer.from('From: hello@sender.test\r\nTo: zoë@dest.test\r\nSubject: Grüße\r\n\r\nbody\r\n', 'utf8'),
  });
  const utf8Email = (await request(fx.app.url, `/emails/${queuedId(utf8.response)}`, { token: fx.token })).body;
  t.match(
    utf8Email,
    { subject: 'Grüße', to: ['zoë@dest.test'] },
    'with SMTPUTF8 (a UTF-8 address in the envelope) UTF-8 headers are taken',
  );

  const tooBig = await send({ text: 'x'.repeat(70 * 1024) });
  t.equal(tooBig.responseCode, 552, `over submission.maxMessageBytes: ${tooBig.response}`);

  const many = await transport(key.token).sendMail({
    envelope: { from: 'hello@sender.test', to: Array.from({ length: 51 }, (_, i) => `r${i}@dest.test`) },
    from: 'hello@sender.test',
    to: 'r0@dest.test',
    subject: 's',
    text: 'x',
  });
  t.same(many.rejected, ['r50@dest.test'], 'the 51st RCPT is refused, the message goes to 50');
  t.match(
    (many.rejectedErrors?.[0] as { response?: string } | undefined)?.response,
    /^452 4\.5\.3 Too many recipients/,
  );

  const other = await keyOf({ name: 'pinned', permission: 'sending_access', domain_id: fx.domainId });
  const pinned = await refusal(
    transport(other.token).sendMail({ from: 'x@elsewhere.test', to: 'alice@dest.test', subject: 's', text: 'x' }),
  );
  t.match(pinned.response, /^550 5\.7\.1 /, 'a domain-pinned key sending from another domain');

  const logged = (await request(fx.app.url, '/logs?search=/emails', { token: fx.token })).body.data as Array<{
    method: string;
    response_status: number;
  }>;
  t.ok(
    logged.some((log) => log.method === 'SMTP' && log.response_status === 403),
    'refusals are in the request log too',
  );
});

t.test('the team rate limit answers 452 at MAIL FROM', async (t) => {
  // An appliance whose teams may make 2 requests a second, seeded through its services (its API
  // would refuse the set-up calls themselves).
  const limited = await startTestApp({ rateLimitPerSecond: 2 });
  const limitedServer = await startSubmissionServer(limited.runtime);
  t.teardown(async () => {
    await limitedServer.close();
    await limited.close();
  });
  const { services, db } = limited.runtime;
  const team = await services.teams.create({ name: 'Limited', planCode: 'unlimited' });
  await services.teams.setTier(team.id, 2);
  const view = await services.domains.create(team, createDomainSchema.parse({ name: 'limited.test' }));
  await db.knex('domains').where({ id: view.domain.id }).update({ status: 'verified' });
  const { token } = await services.apiKeys.create(team.id, { name: 'k', permission: 'sending_access' });
  const client = nodemailer.createTransport({
    host: '127.0.0.1',
    port: limitedServer.port,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
    auth: { user: 'x', pass: token },
  });
  const results = await Promise.all(
    [1, 2, 3, 4, 5, 6].map(() =>
      refusal(client.sendMail({ from: 'hello@limited.test', to: 'a@dest.test', subject: 's', text: 'x' })),
    ),
  );
  const refused = results.filter((r) => r.responseCode === 452);
  t.ok(
    refused.length >= 1,
    `at least one of six in the same second refused: ${results.map((r) => r.responseCode).join(', ')}`,
  );
  t.match(refused[0]!.response, /^452 4\.7\.1 Too many requests/);
});

t.test('with a certificate: STARTTLS presents it, and the implicit-TLS port accepts submissions', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-submission-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const { certFile, keyFile } = writeSelfSignedCertificate(dir, 'submission.mailroom.test');
  const tlsApp = await startTestApp({
    config: { submission: { certFile, keyFile, tlsPort: 0 } },
  });
  const tlsServer = await startSubmissionServer(tlsApp.runtime);
  t.teardown(async () => {
    await tlsServer.close();
    await tlsApp.close();
  });
  t.ok(tlsServer.tlsPort, 'the implicit-TLS port is open');
  const { services, db } = tlsApp.runtime;
  const team = await services.teams.create({ name: 'TLS', planCode: 'unlimited' });
  await services.teams.setTier(team.id, 2);
  const view = await services.domains.create(team, createDomainSchema.parse({ name: 'tls.test' }));
  await db.knex('domains').where({ id: view.domain.id }).update({ status: 'verified' });
  const { token } = await services.apiKeys.create(team.id, { name: 'k', permission: 'sending_access' });
  const ca = readFileSync(certFile);
  const mail = { from: 'hello@tls.test', to: 'a@dest.test', subject: 'tls', text: 'x' };
  const implicit = await nodemailer
    .createTransport({
      host: '127.0.0.1',
      port: tlsServer.tlsPort!,
      secure: true,
      tls: { ca, servername: 'submission.mailroom.test' },
      auth: { user: 'x', pass: token },
    })
    .sendMail(mail);
  t.ok(queuedId(implicit.response), `implicit TLS, the operator's certificate verified: ${implicit.response}`);
  const starttls = await nodemailer
    .createTransport({
      host: '127.0.0.1',
      port: tlsServer.port,
      requireTLS: true,
      tls: { ca, servername: 'submission.mailroom.test' },
      auth: { user: 'x', pass: token },
    })
    .sendMail(mail);
  t.ok(queuedId(starttls.response), 'STARTTLS presents the same certificate');
});

t.test(
  'swaks: STARTTLS, AUTH PLAIN, the id in the reply',
  {
    skip: await skipWithoutSwaks(),
  },
  async (t) => {
    const key = await keyOf({ name: 'swaks', permission: 'sending_access' });
    const { stdout } = await promisify(execFile)('swaks', [
      '--server',
      `127.0.0.1:${server.port}`,
      '--tls',
      '--auth',
      'PLAIN',
      '--auth-user',
      'swaks',
      '--auth-password',
      key.token,
      '--from',
      'hello@sender.test',
      '--to',
      'alice@dest.test',
      '--header',
      'Subject: via swaks',
      '--body',
      'hello from swaks',
    ]);
    const id = /<~\s+250 2\.0\.0 Ok: queued as ([0-9a-f-]{36})/.exec(stdout)?.[1];
    t.ok(id, 'swaks saw the 250 with the id');
    const email = (await request(fx.app.url, `/emails/${id}`, { token: fx.token })).body;
    t.match(email, { subject: 'via swaks', to: ['alice@dest.test'] });
  },
);
