import nodemailer from 'nodemailer';
import t, { type Test } from 'tap';
import { usageEntries } from '../../../core/sending/emails/accepted-emails.js';
import { sendEmailSchema } from '../../../core/sending/emails/email.schemas.js';
import { startSubmissionServer } from '../../../submission/submission-server.js';
import { movableClock } from '../../helpers/clock.js';
import { errorShape, request } from '../../helpers/http.js';
import { receiveMessage, receivingDomain } from '../../helpers/received-mail.js';
import { startTestApp } from '../../helpers/test-app.js';
import { markedVerifiedDomain } from '../../helpers/verified-domain.js';
import { lowerPlanLimits } from '../../helpers/plan-limits.js';

/**
 * The usage ledger agrees with what the quotas count, whichever way an email comes in: every
 * accepted email is one unit of a record written in the email's own transaction (transactional
 * without a broadcast, marketing with one), every received email that is kept one
 * `received_emails`; an idempotent replay, a refused send or a failed commit adds nothing. The
 * clock is at the 15th of next month, 12:00 UTC, so no period boundary is near.
 */
const clock = movableClock();
const app = await startTestApp({ clock });
const submission = await startSubmissionServer(app.runtime);
t.teardown(async () => {
  await submission.close();
  await app.close();
});
const real = new Date();
clock.advanceTo(new Date(Date.UTC(real.getUTCFullYear(), real.getUTCMonth() + 1, 15, 12)));
const { knex } = app.runtime.db;
const services = app.runtime.services;
const monthStart = () => new Date(Date.UTC(clock.now().getUTCFullYear(), clock.now().getUTCMonth(), 1));
const nextMonth = () => new Date(Date.UTC(clock.now().getUTCFullYear(), clock.now().getUTCMonth() + 1, 1));
const dayStart = () =>
  new Date(Date.UTC(clock.now().getUTCFullYear(), clock.now().getUTCMonth(), clock.now().getUTCDate()));

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  request(app.url, path, { method, token: team.token, body, headers });
const records = (teamId: string) => knex('usage_records').where({ team_id: teamId }).orderBy('id');

/** The ledger's month and day against the quotas' counters and the kept received emails. */
async function assertAgrees(
  t: Test,
  team: Team,
  expected: { transactional: number; marketing: number; received: number },
) {
  const month = await services.usage.totals(team.teamId, monthStart(), nextMonth());
  const day = await services.usage.totals(team.teamId, dayStart(), nextMonth());
  const [kept] = (await knex('received_emails')
    .where({ team_id: team.teamId })
    .whereNull('dropped_reason')
    .count({ n: '*' })) as Array<{ n: number | string }>;
  const quota = {
    transactional: await services.countEmails(team.teamId, monthStart(), 'transactional'),
    marketing: await services.countEmails(team.teamId, monthStart(), 'marketing'),
    received: Number(kept!.n),
  };
  t.same(quota, expected, 'the quotas count what the test did');
  t.same(
    { transactional: month.transactional_emails, marketing: month.marketing_emails, received: month.received_emails },
    quota,
    'the ledger agrees with them this month',
  );
  t.equal(
    day.transactional_emails,
    await services.countEmails(team.teamId, dayStart(), 'transactional'),
    'and today (the daily quota)',
  );
}

async function sendingTeam(name: string, plan = 'unlimited') {
  const team = await app.createTeam(name, plan);
  const domain = `${name}.test`;
  await markedVerifiedDomain(app, team.teamId, domain);
  const message = (extra: Record<string, unknown> = {}) => ({
    from: `Sender <hello@${domain}>`,
    to: ['someone@example.net'],
    subject: 'Hello',
    text: 'Hi',
    ...extra,
  });
  return { team, domain, message };
}

t.test('usageEntries: one record per team, meter and month of a unit, dated by its first email', async (t) => {
  const at = new Date('2031-03-31T23:59:59.000Z');
  const email = (id: string, teamId: string, broadcastId: string | null, createdAt: Date) =>
    ({ id, teamId, broadcastId, createdAt }) as never;
  const entries = usageEntries({
    emails: [
      email('e1', 'a', null, new Date(at.getTime() + 1)),
      email('e2', 'a', null, at),
      email('e3', 'a', 'b1', at),
      email('e4', 'b', null, at),
      email('e5', 'a', null, new Date('2031-04-01T00:00:00.500Z')),
    ],
    recipients: [],
    attachmentRows: [],
  });
  t.same(
    entries.map((e) => [e.teamId, e.category, e.quantity, e.at.toISOString(), e.sourceId]),
    [
      ['a', 'transactional_emails', 2, at.toISOString(), 'e1'],
      ['a', 'marketing_emails', 1, at.toISOString(), 'b1'],
      ['b', 'transactional_emails', 1, at.toISOString(), 'e4'],
      ['a', 'transactional_emails', 1, '2031-04-01T00:00:00.500Z', 'e5'],
    ],
  );
});

t.test('POST /emails, a scheduled send and a batch: one record each, in the email’s transaction', async (t) => {
  const { team, message } = await sendingTeam('api-sends');
  const single = await call(team, 'POST', '/emails', message());
  t.equal(single.status, 200);
  let rows = await records(team.teamId);
  t.equal(rows.length, 1, 'one record for one email');
  t.match(rows[0], { category: 'transactional_emails', quantity: 1, source_id: single.body.id });
  await assertAgrees(t, team, { transactional: 1, marketing: 0, received: 0 });

  const later = new Date(clock.now().getTime() + 3_600_000).toISOString();
  t.equal((await call(team, 'POST', '/emails', message({ scheduled_at: later }))).status, 200);
  await assertAgrees(t, team, { transactional: 2, marketing: 0, received: 0 });

  const batch = await call(team, 'POST', '/emails/batch', [message(), message(), message()]);
  t.equal(batch.status, 200);
  rows = await records(team.teamId);
  t.equal(rows.length, 3, 'the batch is one record');
  t.match(rows[2], { category: 'transactional_emails', quantity: 3, source_id: batch.body.data[0].id });
  await assertAgrees(t, team, { transactional: 5, marketing: 0, received: 0 });

  // Permissive: the refused item is neither an email nor usage.
  const permissive = await call(team, 'POST', '/emails/batch', [message(), { ...message(), from: 'nobody' }], {
    'x-batch-validation': 'permissive',
  });
  t.equal(permissive.status, 200);
  t.equal(permissive.body.data.length, 1);
  await assertAgrees(t, team, { transactional: 6, marketing: 0, received: 0 });
});

t.test('an idempotent replay is not counted twice', async (t) => {
  const { team, message } = await sendingTeam('replays');
  const headers = { 'idempotency-key': 'usage-once' };
  const first = await call(team, 'POST', '/emails', message(), headers);
  const again = await call(team, 'POST', '/emails', message(), headers);
  t.equal(first.status, 200);
  t.equal(again.body.id, first.body.id, 'the replay names the same email');
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.equal((await records(team.teamId)).length, 1);
  await assertAgrees(t, team, { transactional: 1, marketing: 0, received: 0 });
});

t.test('a send refused by a quota is not counted', async (t) => {
  lowerPlanLimits(t, 'free', { daily_cap: 2 });
  const { team, message } = await sendingTeam('refusals', 'free');
  t.equal((await call(team, 'POST', '/emails', message())).status, 200);
  errorShape(t, await call(team, 'POST', '/emails/batch', [message(), message()]), 429, 'daily_quota_exceeded');
  t.equal((await call(team, 'POST', '/emails', message())).status, 200);
  errorShape(t, await call(team, 'POST', '/emails', message()), 429, 'daily_quota_exceeded');
  t.equal((await records(team.teamId)).length, 2, 'only the two accepted sends');
  await assertAgrees(t, team, { transactional: 2, marketing: 0, received: 0 });
});

t.test('SMTP submission, an automation’s send and account mail take the same path', async (t) => {
  const { team, domain, message } = await sendingTeam('other-paths');
  const info = await nodemailer
    .createTransport({
      host: '127.0.0.1',
      port: submission.port,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
      auth: { user: 'key', pass: team.token },
    })
    .sendMail({ from: `hello@${domain}`, to: 'someone@example.net', subject: 'By SMTP', text: 'Hi' });
  t.match(info.response, /^250 /, 'accepted over SMTP');
  await assertAgrees(t, team, { transactional: 1, marketing: 0, received: 0 });

  const stored = await services.teams.get(team.teamId);
  const input = sendEmailSchema.parse(message());
  await services.units.run((unit) => services.emailAcceptance.acceptForAutomation(stored, input, unit));
  await services.emailAcceptance.acceptForAccountMail(stored, input);
  await assertAgrees(t, team, { transactional: 3, marketing: 0, received: 0 });
});

t.test('a failed commit writes neither the email nor its usage', async (t) => {
  const { team, message } = await sendingTeam('rollback');
  const stored = await services.teams.get(team.teamId);
  const failed = await services.units
    .run(async (unit) => {
      await services.emailAcceptance.accept(
        { team: stored, apiKey: null } as never,
        sendEmailSchema.parse(message()),
        unit,
      );
      // Another participant of the same transaction fails (as a crash before the commit would).
      unit.write('boom', null, async () => {
        throw new Error('the transaction fails after the email rows');
      });
    })
    .then(
      () => null,
      (err: Error) => err,
    );
  t.match(failed, { message: /fails after the email rows/ });
  t.equal((await knex('emails').where({ team_id: team.teamId })).length, 0, 'no email');
  t.equal((await records(team.teamId)).length, 0, 'no usage');
  await assertAgrees(t, team, { transactional: 0, marketing: 0, received: 0 });
});

t.test('a broadcast is marketing: one record per page, with its quantity', async (t) => {
  const { team, domain } = await sendingTeam('broadcaster', 'pro');
  const postal = { line1: '1 Main St', city: 'Springfield', postal_code: '62701', country: 'US' };
  t.equal((await call(team, 'PATCH', '/team', { sender_name: 'B', postal_address: postal })).status, 200);
  for (const email of ['ada@dest.test', 'bob@dest.test', 'cy@dest.test'])
    t.equal((await call(team, 'POST', '/contacts', { email })).status, 201);
  const segment = (
    await call(team, 'POST', '/segments', {
      name: 'All',
      filter: { all: [{ field: 'email', op: 'contains', value: '@' }] },
    })
  ).body.id;
  const broadcast = await call(team, 'POST', '/broadcasts', {
    segment_id: segment,
    from: `B <news@${domain}>`,
    subject: 'News',
    text: 'News',
    send: true,
  });
  t.equal(broadcast.status, 201);
  t.equal((await services.broadcastFanOut.runDue()).emails, 3);
  const rows = (await records(team.teamId)).filter((r) => r.category === 'marketing_emails');
  t.equal(
    rows.reduce((sum, r) => sum + Number(r.quantity), 0),
    3,
  );
  t.ok(
    rows.every((r) => r.source_id === broadcast.body.id),
    'each names the broadcast',
  );
  t.ok(rows.length < 3 || Number(rows[0].quantity) > 1, 'a page is one record, not one per email');
  await assertAgrees(t, team, { transactional: 0, marketing: 3, received: 0 });
});

t.test('received emails: one record per kept email; a dropped one is not usage', async (t) => {
  const team = await app.createTeam('receiver', 'pro');
  const inbox = await receivingDomain(app, team.teamId);
  const raw = (subject: string) =>
    `From: a@sender.example\r\nTo: support@${inbox}\r\nSubject: ${subject}\r\nMessage-ID: <${subject}@sender.example>\r\n\r\nHello\r\n`;
  const result = await receiveMessage(app, { from: 'a@sender.example', to: [`support@${inbox}`], raw: raw('one') });
  t.equal(result.received.length, 1);
  const rows = await records(team.teamId);
  t.match(rows, [{ category: 'received_emails', quantity: 1, source_id: result.id }]);
  await assertAgrees(t, team, { transactional: 0, marketing: 0, received: 1 });

  await knex('teams').where({ id: team.teamId }).update({ risk_state: 'suspended' });
  services.lookupCache.invalidate();
  const dropped = await receiveMessage(app, { from: 'a@sender.example', to: [`support@${inbox}`], raw: raw('two') });
  t.equal(dropped.received[0]?.droppedReason, 'team_suspended', 'kept as a row, dropped');
  await assertAgrees(t, team, { transactional: 0, marketing: 0, received: 1 });
});
