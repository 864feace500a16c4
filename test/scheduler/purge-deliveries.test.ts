import t from 'tap';
import type { Delivery, DeliveryState } from '../../core/sending/deliveries/delivery.types.js';
import { ALL_DESTINATIONS } from '../../core/sending/deliveries/egress-block.repository.js';
import { newId } from '../../lib/ids.js';
import { jobs } from '../../scheduler/jobs/index.js';
import { startScheduler } from '../../scheduler/scheduler.js';
import { insertAttempt, insertDeliveries, insertEmail } from '../helpers/queue-rows.js';
import { startTestApp } from '../helpers/test-app.js';

const app = await startTestApp({ config: { mta: { transcriptRetentionDays: 3 } } });
t.teardown(() => app.close());
const { runtime } = app;
const knex = runtime.db.knex;
const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

/** One email with one delivery in `state`, created `age` days ago. */
async function delivery(teamId: string, state: DeliveryState, age: number): Promise<Delivery> {
  const email = await insertEmail(runtime, teamId, [`${state}-${age}@dest.test`], daysAgo(age));
  return (await insertDeliveries(runtime, email, { state, createdAt: daysAgo(age) }))[0]!;
}
const exists = async (id: string) => (await knex('deliveries').where({ id })).length === 1;
const attemptsOf = async (id: string) =>
  (await knex('delivery_attempts').where({ delivery_id: id }).orderBy('created_at')).map(
    (r: { reply: string }) => r.reply,
  );

t.test('purge-deliveries is a scheduled hourly job', async (t) => {
  const job = jobs.find((j) => j.name === 'purge-deliveries');
  t.ok(job);
  t.match(job!.cron, /^\d+ \* \* \* \*$/);
});

t.test('attempts by the transcript window, settled deliveries by the plan window, waiting ones never', async (t) => {
  const free = await app.createTeam('Free');
  const pro = await app.createTeam('Pro', 'pro');

  const waiting = await delivery(free.teamId, 'deferred', 2);
  await insertAttempt(runtime, waiting, 'deferred', 'old reply', daysAgo(4));
  await insertAttempt(runtime, waiting, 'deferred', 'recent reply', daysAgo(1));

  const kept = [
    waiting,
    await delivery(free.teamId, 'queued', 40), // still waiting: never purged by age (it expires into a bounce)
    await delivery(free.teamId, 'held', 40),
    await delivery(free.teamId, 'delivered', 20), // inside the free plan's 30 days
    await delivery(pro.teamId, 'bounced', 40), // inside the pro plan's 90 days
  ];
  const gone = [
    await delivery(free.teamId, 'delivered', 40),
    await delivery(free.teamId, 'bounced', 31),
    await delivery(free.teamId, 'suppressed', 40),
    await delivery(free.teamId, 'failed', 40),
    await delivery(pro.teamId, 'delivered', 100),
    await delivery(newId(), 'delivered', 1), // its team no longer exists
  ];
  // An attempt younger than the transcript window goes with its delivery all the same.
  await insertAttempt(runtime, gone[0]!, 'delivered', '250 ok', daysAgo(1));

  const result = await runtime.services.deliveryRetention.purgeExpired(2);
  t.match(result, { attempts: 1, deliveries: gone.length });
  for (const d of kept) t.ok(await exists(d.id), `kept: ${d.recipient}`);
  for (const d of gone) t.notOk(await exists(d.id), `purged: ${d.recipient}`);
  t.same(await attemptsOf(waiting.id), ['recent reply'], 'the 4-day-old attempt is past the 3-day transcript window');
  t.same(await attemptsOf(gone[0]!.id), [], 'no attempt outlives its delivery');
  t.match(
    await runtime.services.deliveryRetention.purgeExpired(),
    { attempts: 0, deliveries: 0, egressBlocks: 0 },
    'nothing left to do',
  );
});

t.test('egress rests that ran out are forgotten a day later; an operator disable stays', async (t) => {
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3600_000);
  const row = (egress_ip: string, destination: string, blocked_until: Date | null, updated_at: Date) => ({
    egress_ip,
    destination,
    strikes: 3,
    blocked_until,
    last_reply: '554 blocked',
    updated_at,
  });
  await knex('egress_blocks').insert([
    row('127.0.0.2', 'expired-long-ago.test', hoursAgo(30), hoursAgo(36)),
    row('127.0.0.2', 'expired-recently.test', hoursAgo(1), hoursAgo(7)),
    row('127.0.0.2', 'resting.test', new Date(Date.now() + 3600_000), hoursAgo(5)),
    row('127.0.0.2', 'stale-strikes.test', null, daysAgo(8)),
    row('127.0.0.2', 'fresh-strikes.test', null, daysAgo(2)),
    row('127.0.0.3', ALL_DESTINATIONS, new Date('9999-12-31T00:00:00Z'), daysAgo(60)),
  ]);
  const scheduler = startScheduler(runtime);
  try {
    t.match(await scheduler.runNow('purge-deliveries'), { attempts: 0, deliveries: 0, egressBlocks: 2 });
  } finally {
    await scheduler.stop();
  }
  const left = (await knex('egress_blocks').orderBy('destination')).map((r: { destination: string }) => r.destination);
  t.same(left.sort(), [ALL_DESTINATIONS, 'expired-recently.test', 'fresh-strikes.test', 'resting.test'].sort());
  t.ok(
    (await runtime.services.deliveries.restingEgress('any.test')).has('127.0.0.3'),
    'the disabled address is still out',
  );
});
