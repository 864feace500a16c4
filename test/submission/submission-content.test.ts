import nodemailer from 'nodemailer';
import t from 'tap';
import { createDomainSchema } from '../../core/sending/domains/domain.schemas.js';
import { startSubmissionServer } from '../../submission/submission-server.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * Messages the submission port will never accept are refused permanently (5xx), so the client
 * stops retrying, with a reason that says what to change: too many MIME parts, a NUL (or other
 * control character) in the Subject as in any other header.
 */
const app = await startTestApp();
const server = await startSubmissionServer(app.runtime);
t.teardown(async () => {
  await server.close();
  await app.close();
});
const { services, db } = app.runtime;
const team = await services.teams.create({ name: 'Content', planCode: 'unlimited' });
await services.teams.setTier(team.id, 2);
const view = await services.domains.create(team, createDomainSchema.parse({ name: 'content.test' }));
await db.knex('domains').where({ id: view.domain.id }).update({ status: 'verified' });
const { token } = await services.apiKeys.create(team.id, { name: 'k', permission: 'sending_access' });

/** Submits raw bytes over STARTTLS + AUTH; the server's final reply to the message. */
const submit = (raw: Buffer | string) =>
  nodemailer
    .createTransport({
      host: '127.0.0.1',
      port: server.port,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
      auth: { user: 'x', pass: token },
    })
    .sendMail({ envelope: { from: 'hello@content.test', to: ['alice@dest.test'] }, raw })
    .then(
      (info) => info.response,
      (err: { response?: string; message: string }) => err.response ?? err.message,
    );

const HEAD = 'From: hello@content.test\r\nTo: alice@dest.test\r\n';

/** A multipart/mixed message of `n` small text parts. */
function withParts(n: number): string {
  const parts = Array.from({ length: n }, (_, i) => `--b\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`);
  return `${HEAD}Subject: many parts\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n${parts.join('')}--b--\r\n`;
}

t.test('a message of 1,100 MIME parts is refused permanently, with the limit', async (t) => {
  const reply = await submit(withParts(1100));
  t.match(reply, /^55[04] 5\.6\.0 .*too many MIME parts \(limit 1000\)/, reply);
  const fine = await submit(withParts(20));
  t.match(fine, /^250 2\.0\.0 Ok: queued as /, `a message of 20 parts is accepted: ${fine}`);
});

t.test('a NUL in the Subject is refused as in any other header, naming it', async (t) => {
  const raw = await submit(`${HEAD}Subject: before\0after\r\n\r\nbody\r\n`);
  t.match(raw, /^550 5\.6\.0 .*Subject/, `a raw NUL: ${raw}`);
  const encoded = await submit(`${HEAD}Subject: =?utf-8?Q?before=00after?=\r\n\r\nbody\r\n`);
  t.match(encoded, /^550 5\.6\.0 .*Subject/, `an encoded NUL: ${encoded}`);
  const custom = await submit(`${HEAD}Subject: fine\r\nX-Custom: before\0after\r\n\r\nbody\r\n`);
  t.match(custom, /^550 5\.6\.0 .*X-Custom/, `in a custom header: ${custom}`);
  const name = await submit(
    `From: =?utf-8?Q?Hello=00There?= <hello@content.test>\r\nTo: alice@dest.test\r\nSubject: s\r\n\r\nb\r\n`,
  );
  t.match(name, /^550 5\.6\.0 .*From/, `an encoded NUL in a display name: ${name}`);
  const ok = await submit(`${HEAD}Subject: =?utf-8?Q?caf=C3=A9?=\r\n\r\nbody\r\n`);
  t.match(ok, /^250 /, `an ordinary encoded Subject passes: ${ok}`);
});
