import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { movableClock } from '../../helpers/clock.js';
import { receiveMessage, receivingDomain } from '../../helpers/received-mail.js';
import { startTestApp } from '../../helpers/test-app.js';

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

t.test("retention: the plan's window, then the raw message once no row refers to it", async (t) => {
  const both = await receiveMessage(app, {
    from: 'someone@elsewhere.test',
    to: [`a@${freeDomain}`, `b@${paidDomain}`],
    raw: raw(`a@${freeDomain}, b@${paidDomain}`, 'for both'),
  });
  const name = both.received[0]!.rawBlob!;
  t.ok(existsSync(blobPath(name)), 'the raw message is in the blob store');

  clock.advanceTo(Date.now() + 31 * 86_400_000);
  const first = await services.receivedEmails.purgeExpired();
  t.ok(first.emails >= 1, 'the free plan keeps 30 days');
  const freeLeft = await services.receivedEmails.list(free.teamId, {});
  t.equal(freeLeft.emails.length, 0);
  const paidLeft = await services.receivedEmails.list(paid.teamId, {});
  t.equal(paidLeft.emails.length, 1, 'the unlimited plan keeps it longer');
  t.ok(existsSync(blobPath(name)), 'the raw message stays while a row refers to it');

  clock.advanceTo(Date.now() + 400 * 86_400_000);
  await services.receivedEmails.purgeExpired();
  t.equal((await services.receivedEmails.list(paid.teamId, {})).emails.length, 0);
  t.notOk(existsSync(blobPath(name)), 'then the raw message goes too');
});
