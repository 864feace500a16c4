import t from 'tap';
import type { DeliverabilityAction } from '../../core/sending/shaping/shaping.types.js';
import { newId } from '../../lib/ids.js';
import { jobs } from '../../scheduler/jobs/index.js';
import { startTestApp } from '../helpers/test-app.js';

/** purge-deliverability-actions: shaping actions that ended over 90 days ago go; newer and active ones stay. */
const app = await startTestApp();
t.teardown(() => app.close());
const { runtime } = app;
const { repository } = runtime.services.shaping.actions;
const DAY = 86_400_000;

/** A pause that started `startedDaysAgo` and ended `endedDaysAgo` (negative: still in force). */
async function action(startedDaysAgo: number, endedDaysAgo: number): Promise<string> {
  const row: DeliverabilityAction = {
    id: newId(),
    kind: 'pause',
    provider: 'gmail',
    egressIp: '192.0.2.10',
    teamId: null,
    factor: null,
    ruleId: 'gmail-temporarily-blocked',
    reason: '421 4.7.0 temporarily rate limited',
    startedAt: new Date(Date.now() - startedDaysAgo * DAY),
    endsAt: new Date(Date.now() - endedDaysAgo * DAY),
  };
  await repository.insert(row);
  return row.id;
}

t.test('purge-deliverability-actions is a scheduled daily job', async (t) => {
  const job = jobs.find((j) => j.name === 'purge-deliverability-actions');
  t.ok(job);
  t.match(job!.cron, /^\d+ \d+ \* \* \*$/);
});

t.test('ended over 90 days ago: deleted; ended recently or still in force: kept', async (t) => {
  const old = [await action(120, 91), await action(200, 180)];
  const recent = await action(90, 89);
  const active = await action(100, -1);
  const job = jobs.find((j) => j.name === 'purge-deliverability-actions')!;
  t.same(await job.run(runtime.services), { deleted: 2 });
  for (const id of old) t.equal(await repository.findById(id), undefined, 'old action gone');
  t.ok(await repository.findById(recent), 'ended 89 days ago: kept');
  t.ok(await repository.findById(active), 'a long action still in force: kept');
  t.same(await job.run(runtime.services), { deleted: 0 }, 'a second run finds nothing');
});
