import t from 'tap';
import { startTestApp } from '../../../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());

t.test('events older than the plan window are purged; recent ones and other plans kept', async (t) => {
  const { eventLog: events, teams } = app.runtime.services;
  const free = await app.createTeam('Free');
  const pro = await app.createTeam('Pro', 'pro');
  for (const team of [free, pro]) {
    await events.record(team.teamId, 'suppression.added', { email: 'old@example.com' });
    await events.record(team.teamId, 'suppression.added', { email: 'new@example.com' });
  }
  const aged = new Date(Date.now() - 40 * 86_400_000);
  await app.runtime.db
    .knex('events')
    .whereIn('team_id', [free.teamId, pro.teamId])
    .andWhere('data', 'like', '%old@%')
    .update({ created_at: aged });
  const deleted = await events.purgeExpired(1);
  t.equal(deleted, 1, 'only the free team’s 40-day-old event (30-day window)');
  t.same(
    (await events.list(free.teamId)).map((e) => e.data.email),
    ['new@example.com'],
  );
  t.equal((await events.list(pro.teamId)).length, 2, 'pro keeps 90 days');
  t.equal((await teams.get(pro.teamId)).plan.limits.retention_days, 90);
});
