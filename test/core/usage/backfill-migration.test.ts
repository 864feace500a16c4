import t, { type Test } from 'tap';
import { backfillUsageRecords, BACKFILL_SOURCE } from '../../../db/migrations/20261128-0105-backfill-usage-records.js';
import { request } from '../../helpers/http.js';
import { receiveMessage, receivingDomain } from '../../helpers/received-mail.js';
import { startTestApp } from '../../helpers/test-app.js';
import { markedVerifiedDomain } from '../../helpers/verified-domain.js';

/**
 * 20261128-0105 on an installation that had mail before the ledger: emails and received emails
 * of last month and this month become backfill records per team and category, so the ledger's
 * totals agree with the quotas' counts after the upgrade (month and day); older mail is left
 * out; a second run (interrupted, replayed) changes nothing, also once the application has
 * written records of its own. The migration reads the real time, so this test runs on it.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const { knex } = app.runtime.db;
const services = app.runtime.services;
const now = new Date();
const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));

t.test('the migration is in the list and ran on a fresh database (nothing to backfill)', async (t) => {
  const ran = await knex('knex_migrations').where({ name: '20261128-0105-backfill-usage-records' }).first();
  t.ok(ran, 'applied at start');
  t.equal((await knex('usage_records').where({ source_id: BACKFILL_SOURCE })).length, 0);
});

type Team = { teamId: string; token: string };
const totals = (team: Team, from: Date, to: Date) => services.usage.totals(team.teamId, from, to);

/** The ledger of [from, to) against the quotas' counts and the kept received emails of the same range. */
async function assertAgrees(t: Test, team: Team, from: Date, to: Date, label: string) {
  const count = async (query: ReturnType<typeof knex>) => {
    const [row] = (await query
      .where('created_at', '>=', from)
      .where('created_at', '<', to)
      .count({ n: '*' })) as Array<{
      n: number | string;
    }>;
    return Number(row!.n);
  };
  const expected = {
    transactional_emails: await count(knex('emails').where({ team_id: team.teamId }).whereNull('broadcast_id')),
    marketing_emails: await count(knex('emails').where({ team_id: team.teamId }).whereNotNull('broadcast_id')),
    received_emails: await count(knex('received_emails').where({ team_id: team.teamId }).whereNull('dropped_reason')),
  };
  const ledger = await totals(team, from, to);
  t.same(
    {
      transactional_emails: ledger.transactional_emails,
      marketing_emails: ledger.marketing_emails,
      received_emails: ledger.received_emails,
    },
    expected,
    `${label}: the ledger agrees with the rows`,
  );
  return expected;
}

t.test('an upgrade with mail of last month, this month and today', async (t) => {
  const team = await app.createTeam('before-ledger', 'unlimited');
  await markedVerifiedDomain(app, team.teamId, 'old.test');
  const inbox = await receivingDomain(app, team.teamId);
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) {
    const sent = await request(app.url, '/emails', {
      method: 'POST',
      token: team.token,
      body: { from: 'a@old.test', to: 'x@example.net', subject: `S${i}`, text: 'T' },
    });
    t.equal(sent.status, 200);
    ids.push(sent.body.id);
  }
  const received: string[] = [];
  for (let i = 0; i < 2; i++) {
    const raw = `From: p@peer.example\r\nTo: in@${inbox}\r\nSubject: R${i}\r\nMessage-ID: <r${i}@peer.example>\r\n\r\nHi\r\n`;
    received.push((await receiveMessage(app, { from: 'p@peer.example', to: [`in@${inbox}`], raw })).id);
  }
  // A broadcast's email: marketing. Marked on a sent row, as the fan-out would have written it.
  await knex('emails').where({ id: ids[5] }).update({ broadcast_id: '00000000-0000-7000-8000-000000000001' });
  // Spread over time: two last month, one earlier this month (unless today is the 1st), one
  // two months ago (not backfilled), the rest today; one received email last month.
  const at = (date: Date, hours: number) => new Date(date.getTime() + hours * 3_600_000);
  await knex('emails')
    .where({ id: ids[0] })
    .update({ created_at: at(lastMonth, 5) });
  await knex('emails')
    .where({ id: ids[1] })
    .update({ created_at: at(lastMonth, 30) });
  if (today > monthStart)
    await knex('emails')
      .where({ id: ids[2] })
      .update({ created_at: at(monthStart, 1) });
  await knex('emails')
    .where({ id: ids[3] })
    .update({ created_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 10)) });
  await knex('received_emails')
    .where({ id: received[0] })
    .update({ created_at: at(lastMonth, 2) });

  // Before the ledger: none of it was recorded.
  await knex('usage_records').delete();
  await backfillUsageRecords.up(knex);

  const month = await assertAgrees(t, team, monthStart, nextMonth, 'this month');
  t.same(month, { transactional_emails: 2, marketing_emails: 1, received_emails: 1 }, 'this month');
  t.equal(
    month.transactional_emails,
    await services.countEmails(team.teamId, monthStart, 'transactional'),
    'the monthly quota counts the same',
  );
  t.equal(month.marketing_emails, await services.countEmails(team.teamId, monthStart, 'marketing'));
  await assertAgrees(t, team, today, nextMonth, 'today');
  t.equal(
    (await totals(team, today, nextMonth)).transactional_emails,
    await services.countEmails(team.teamId, today, 'transactional'),
    'the daily quota counts the same',
  );
  const previous = await assertAgrees(t, team, lastMonth, monthStart, 'last month');
  t.same(previous, { transactional_emails: 2, marketing_emails: 0, received_emails: 1 });
  t.equal(
    (await totals(team, new Date(0), lastMonth)).transactional_emails,
    0,
    'nothing older than last month is backfilled',
  );
  const rows = await knex('usage_records').where({ team_id: team.teamId });
  t.ok(
    rows.every((r) => r.source_id === BACKFILL_SOURCE),
    'every record says it is a backfill',
  );
  t.ok(rows.length <= 9, `one record per category and day (${rows.length})`);
  const lastMonthSends = rows.filter(
    (r) => r.category === 'transactional_emails' && r.period === lastMonth.toISOString().slice(0, 7),
  );
  t.same(
    lastMonthSends.map((r) => Number(r.quantity)),
    [1, 1],
    'last month: its two days, one record each',
  );

  // Run again (an interrupted migration replayed): the same totals, no duplicates.
  await backfillUsageRecords.up(knex);
  await assertAgrees(t, team, monthStart, nextMonth, 'replayed, this month');
  await assertAgrees(t, team, lastMonth, monthStart, 'replayed, last month');
  t.equal((await knex('usage_records').where({ team_id: team.teamId })).length, rows.length);

  // The application records from now on; a replay then counts only what came before it.
  const live = await request(app.url, '/emails', {
    method: 'POST',
    token: team.token,
    body: { from: 'a@old.test', to: 'x@example.net', subject: 'live', text: 'T' },
  });
  t.equal(live.status, 200);
  await assertAgrees(t, team, monthStart, nextMonth, 'after a live send');
  await backfillUsageRecords.up(knex);
  await assertAgrees(t, team, monthStart, nextMonth, 'replayed after a live send');
  await assertAgrees(t, team, today, nextMonth, 'replayed after a live send, today');

  await backfillUsageRecords.down(knex);
  t.equal((await knex('usage_records').where({ source_id: BACKFILL_SOURCE })).length, 0, 'down removes its records');
  t.equal((await totals(team, monthStart, nextMonth)).transactional_emails, 1, 'and only those: the live record stays');
});
