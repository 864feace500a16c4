import t from 'tap';
import { purgeUsageRecordsJob } from '../../../scheduler/jobs/purge-usage-records.job.js';
import { movableClock } from '../../helpers/clock.js';
import { startTestApp } from '../../helpers/test-app.js';

/**
 * The ledger's retention: records of the current month and the twelve before it stay, older
 * ones go (in batches), through the scheduler's job; totals of the kept months do not move.
 */
const clock = movableClock();
clock.advanceTo(new Date(Date.UTC(2027, 5, 15, 12))); // 15 June 2027
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const { knex } = app.runtime.db;
const { usage } = app.runtime.services;
const team = await app.createTeam('Retention');

t.test('records older than a year go; the last thirteen months stay', async (t) => {
  const at = (year: number, month: number) => new Date(Date.UTC(year, month, 10));
  const months = [at(2026, 3), at(2026, 4), at(2026, 5), at(2027, 0), at(2027, 5)]; // Apr, May, Jun 2026; Jan, Jun 2027
  await usage.record(
    knex,
    months.map((date) => ({ teamId: team.teamId, category: 'transactional_emails' as const, quantity: 7, at: date })),
  );
  const keptBefore = await usage.totals(team.teamId, at(2026, 5), at(2027, 6));
  const answer = await purgeUsageRecordsJob.run(app.runtime.services);
  t.same(answer, { deleted: 2 }, 'April and May 2026 went');
  const periods = (await knex('usage_records')
    .where({ team_id: team.teamId })
    .orderBy('period')
    .pluck('period')) as string[];
  t.same(periods, ['2026-06', '2027-01', '2027-06'], 'June 2026 (twelve months back) and later stay');
  t.same(await usage.totals(team.teamId, at(2026, 5), at(2027, 6)), keptBefore, 'the kept months total the same');
  t.same(await purgeUsageRecordsJob.run(app.runtime.services), { deleted: 0 }, 'a second run has nothing to do');
});

t.test('deletes in batches until none is left', async (t) => {
  const old = new Date(Date.UTC(2025, 0, 5));
  await usage.record(
    knex,
    Array.from({ length: 12 }, () => ({ teamId: team.teamId, category: 'ai_credits' as const, quantity: 1, at: old })),
  );
  t.equal(await usage.purgeBefore(new Date(Date.UTC(2026, 0, 1)), 5), 12, 'three batches of up to five');
  t.equal((await knex('usage_records').where({ period: '2025-01' })).length, 0);
});
