import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { movableClock } from '../../helpers/clock.js';
import { receiveMessage, receivingDomain } from '../../helpers/received-mail.js';
import { startTestApp } from '../../helpers/test-app.js';
import { createRuntime } from '../../../app/runtime.js';
import { createLogger } from '../../../lib/logger.js';
import { parseSpoolRef } from '../../../lib/spool/spool-ref-text.js';

/**
 * The receiving core without SMTP: who a message is kept for, what is recorded for a suspended
 * team, retention by plan (rows, then raw messages no row refers to), and the route decisions.
 */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const free = await app.createTeam('Free plan');
const paid = await app.createTeam('Paid plan', 'unlimited');
const freeDomain = await receivingDomain(app, free.teamId);
const paidDomain = await receivingDomain(app, paid.teamId);
const services = app.runtime.services;
const raw = (to: string, subject: string) =>
  `From: Someone <someone@elsewhere.test>\r\nTo: ${to}\r\nSubject: ${subject}\r\nMessage-ID: <m-${subject}@elsewhere.test>\r\n\r\nbody\r\n`;
const blobPath = (name: string) => join(app.runtime.config.dataDir, 'received', name);

t.test('a suspended team: recorded with dropped_reason, not stored, no event', async (t) => {
  await services.teams.setRiskState(free.teamId, 'suspended');
  const result = await receiveMessage(app, {
    from: 'someone@elsewhere.test',
    to: [`a@${freeDomain}`],
    raw: raw(`a@${freeDomain}`, 'while suspended'),
  });
  await services.teams.setRiskState(free.teamId, 'normal');
  const [email] = result.received;
  t.equal(email!.droppedReason, 'team_suspended');
  t.equal(email!.rawBlob, null);
  const detail = await services.receivedEmails.get(free.teamId, email!.id);
  t.equal(detail.html, null);
  t.equal(detail.raw, null, 'no raw link for a message that was not stored');
  const events = await services.eventLog.list(free.teamId, { type: 'email.received' });
  t.notOk(
    events.some((e) => e.data.email_id === email!.id),
    'no email.received for a dropped message',
  );
});

t.test('routes: mailbox, unknown, feedback loop, VERP of no email', async (t) => {
  t.match(await services.inboundRecipients.route(`x@${paidDomain}`), { kind: 'mailbox', teamIds: [paid.teamId] });
  t.match(await services.inboundRecipients.route(`X@${paidDomain.toUpperCase()}`), { kind: 'mailbox' });
  t.match(await services.inboundRecipients.route('x@nobody.test'), { kind: 'unknown' });
  t.match(await services.inboundRecipients.route(`fbl@${app.runtime.config.mta.hostname}`), { kind: 'feedback' });
  t.match(await services.inboundRecipients.route(`bounces+0193a5c0-0000-7000-8000-000000000000@send.${paidDomain}`), {
    kind: 'unknown',
  });
  await app.runtime.db.knex('domains').where({ name: paidDomain }).update({ record_statuses: '{}' });
  services.lookupCache.invalidate();
  t.match(
    await services.inboundRecipients.route(`x@${paidDomain}`),
    { kind: 'unknown' },
    'a receiving domain whose MX is not verified receives nothing',
  );
  await app.runtime.db
    .knex('domains')
    .where({ name: paidDomain })
    .update({ record_statuses: JSON.stringify({ receiving_mx: 'verified' }) });
  services.lookupCache.invalidate();
});

t.test("retention: the plan's window, then the raw message's spool segment once nothing refers to it", async (t) => {
  // The inbound MX is its own process with its own spool segment: a second runtime on the same
  // database and data dir, closed afterwards (its segment is then nobody's current one).
  const inbound = await createRuntime(app.runtime.config, { logger: createLogger('silent'), clock });
  let both;
  try {
    both = await inbound.services.inboundIntake.accept(
      {
        mailFrom: 'someone@elsewhere.test',
        recipients: [`a@${freeDomain}`, `b@${paidDomain}`],
        remoteIp: '127.0.0.1',
        helo: 'client.test',
        tls: false,
      },
      Buffer.from(raw(`a@${freeDomain}, b@${paidDomain}`, 'for both')),
    );
  } finally {
    await inbound.close();
  }
  const record = parseSpoolRef(both.received[0]!.rawBlob!);
  t.ok(record, `the raw message is a spool record (${both.received[0]!.rawBlob})`);
  t.equal(both.received[1]!.rawBlob, both.received[0]!.rawBlob, "one record shared by both teams' rows");
  const segment = join(app.runtime.config.dataDir, 'spool', record!.segment);
  t.ok(existsSync(segment));
  const paidRow = both.received.find((r) => r.teamId === paid.teamId)!;
  t.equal(
    (await services.receivedEmails.get(paid.teamId, paidRow.id)).text?.trim(),
    'body',
    'read back from the spool',
  );

  clock.advanceTo(Date.now() + 31 * 86_400_000);
  const first = await services.receivedEmails.purgeExpired();
  t.ok(first.emails >= 1, 'the free plan keeps 30 days');
  t.equal((await services.receivedEmails.list(free.teamId, {})).emails.length, 0);
  t.equal((await services.receivedEmails.list(paid.teamId, {})).emails.length, 1, 'the unlimited plan keeps it longer');
  t.ok(
    await services.receivedEmails.spoolSegmentReferenced(record!.segment),
    'a received email still refers to the segment',
  );
  await services.emails.purgeExpired();
  t.ok(existsSync(segment), "the spool's sweep keeps a segment a received email refers to (no email does)");
  t.equal((await services.receivedEmails.get(paid.teamId, paidRow.id)).text?.trim(), 'body');

  clock.advanceTo(Date.now() + 400 * 86_400_000);
  await services.receivedEmails.purgeExpired();
  t.equal((await services.receivedEmails.list(paid.teamId, {})).emails.length, 0);
  t.notOk(await services.receivedEmails.spoolSegmentReferenced(record!.segment));
  const swept = await services.emails.purgeExpired();
  t.ok(swept.segments >= 1, 'then the sweep deletes the segment');
  t.notOk(existsSync(segment), 'and the raw message goes with it');
});

t.test('mail stored before issue 37 (a file in the blob store) is still read, and deleted by retention', async (t) => {
  const result = await receiveMessage(app, {
    from: 'someone@elsewhere.test',
    to: [`b@${paidDomain}`],
    raw: raw(`b@${paidDomain}`, 'older'),
  });
  const id = result.received[0]!.id;
  await app.runtime.blobs.put(
    'received',
    `${id}.eml`,
    Buffer.from(raw(`b@${paidDomain}`, 'older').replace('body', 'from a file')),
  );
  await app.runtime.db
    .knex('received_emails')
    .where({ id })
    .update({ raw_blob: `${id}.eml` });
  t.equal((await services.receivedEmails.get(paid.teamId, id)).text?.trim(), 'from a file', 'read from the blob store');
  clock.advanceTo(Date.now() + 800 * 86_400_000);
  const purged = await services.receivedEmails.purgeExpired();
  t.ok(purged.raw >= 1, 'the file is counted');
  t.notOk(existsSync(blobPath(`${id}.eml`)), 'and deleted once no row refers to it');
});
