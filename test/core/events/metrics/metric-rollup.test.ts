import t from 'tap';
import { MetricsRollup, lowestIdAt } from '../../../../core/events/metrics/metric-rollup.js';
import { metricsQuerySchema } from '../../../../core/events/metrics/metric-query.schemas.js';
import { MetricsService } from '../../../../core/events/metrics/metric.service.js';
import { newId } from '../../../../lib/ids.js';
import { jobs } from '../../../../scheduler/jobs/index.js';
import { startScheduler } from '../../../../scheduler/scheduler.js';
import { bounce, eventAt, metricEmail } from '../../../helpers/metric-events.js';
import { startTestApp } from '../../../helpers/test-app.js';

/**
 * The roll-up from events into one-minute buckets: what each event type counts, counting once
 * (unique opens and clicks, attempted), exactly once with two roll-ups at the same time, a
 * crash in the middle of a batch, the settle time, and retention.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const { runtime } = app;
const knex = runtime.db.knex;
const metrics = runtime.services.metrics;
/** Everything recorded so far: the horizon is the next minute boundary. */
const rollUpAll = () => metrics.rollUp({ until: new Date(Date.now() + 60_000) });
const totalsOf = async (teamId: string, raw: Record<string, string> = {}) => {
  const reporter = new MetricsService({ knex, clock: { now: () => new Date('2026-11-22T00:00:00Z') } });
  return (
    await reporter.report(
      { id: teamId, plan: { limits: { retention_days: 30 } } },
      metricsQuerySchema.parse({ start_date: '2026-11-01', ...raw }),
    )
  ).totals;
};

t.test('what each event counts', async (t) => {
  const team = await app.createTeam('Counts');
  const [d1, d2] = [newId(), newId()];
  const at = (s: string) => `2026-11-20T10:00:${s}Z`;
  const a = await metricEmail(runtime, team.teamId, d1, ['a@x.test', 'B@x.test'], { cc: ['c@x.test', 'b@X.test'] });
  await eventAt(runtime, at('01'), a, 'email.sent');
  await eventAt(runtime, at('05'), a, 'email.delivered', { to: ['a@x.test', 'B@x.test'] });
  await eventAt(runtime, at('06'), a, 'email.bounced', { to: ['c@x.test'], extra: bounce('Permanent') });
  await eventAt(runtime, at('07'), a, 'email.complained', { to: ['a@x.test'] });
  for (const s of ['10', '20', '30'])
    await eventAt(runtime, at(s), a, 'email.opened', {
      extra: { open: { ipAddress: null, timestamp: at(s), userAgent: null } },
    });
  await eventAt(runtime, at('40'), a, 'email.clicked', {
    extra: { click: { ipAddress: null, link: 'https://x.test', timestamp: at('40'), userAgent: null } },
  });

  const b = await metricEmail(runtime, team.teamId, d2, ['d@y.test', 'e@y.test'], { suppressed: ['e@y.test'] });
  await eventAt(runtime, at('02'), b, 'email.suppressed', {
    to: ['e@y.test'],
    extra: { suppressed: { reason: 'suppressed', type: 'suppression_list', message: 'm', diagnosticCode: [] } },
  });
  await eventAt(runtime, at('03'), b, 'email.sent');
  await eventAt(runtime, at('08'), b, 'email.delivery_delayed', {
    to: ['d@y.test'],
    extra: { delay: { type: 'MailboxFull', expirationTime: at('59'), delayedRecipients: ['d@y.test'] } },
  });
  await eventAt(runtime, at('09'), b, 'email.bounced', { to: ['d@y.test'], extra: bounce('Transient') });

  const c = await metricEmail(runtime, team.teamId, d1, ['f@z.test']);
  await eventAt(runtime, at('04'), c, 'email.sent');
  await eventAt(runtime, at('11'), c, 'email.failed', { to: ['f@z.test'], extra: { failed: { reason: 'gone' } } });
  const d = await metricEmail(runtime, team.teamId, d1, ['g@z.test']);
  await eventAt(runtime, at('12'), d, 'email.bounced', { to: ['g@z.test'], extra: bounce('Undetermined') });
  await eventAt(runtime, at('13'), { ...d, id: newId() }, 'email.received');
  await runtime.services.eventLog.record(team.teamId, 'domain.created', { id: d1 });
  // Unreadable events count nothing and do not stop the roll-up.
  await knex('events').insert({
    id: newId(),
    team_id: team.teamId,
    type: 'email.delivered',
    data: 'not json',
    created_at: new Date(at('14')),
  });
  await knex('events').insert({
    id: newId(),
    team_id: team.teamId,
    type: 'email.delivered',
    data: '{"to":["x@x.test"]}',
    created_at: new Date(at('15')),
  });

  const result = await rollUpAll();
  t.equal(result.events, 19, `counted the events (${result.events})`);
  t.same(await totalsOf(team.teamId), {
    received: 1,
    delivered: 2,
    complained: 1,
    suppressed: 1,
    bounced: 3,
    bounced_transient: 1,
    bounced_permanent: 1,
    bounced_undetermined: 1,
    opened: 3,
    clicked: 1,
    delivery_delayed: 1,
    failed: 1,
    sent: 5, // a: a, b, c (b twice, any case: once); b: d (e was suppressed at acceptance); c: f
    unique_opened: 1,
    unique_clicked: 1,
    delivery_rate: 0.4,
    open_rate: 1, // 3 opens of 2 deliveries: a rate never exceeds 1
    click_rate: 0.5,
    bounce_rate: 0.6,
    complaint_rate: 0.2,
    attempted: 3, // a, b and c; d has only a bounce
  });
  t.same(await totalsOf(team.teamId, { domain_id: d2, metrics: 'sent,attempted,suppressed,bounced_transient' }), {
    sent: 1,
    attempted: 1,
    suppressed: 1,
    bounced_transient: 1,
  });
  t.same(await totalsOf(team.teamId, { email_id: a.id, metrics: 'sent,delivered,unique_opened' }), {
    sent: 3,
    delivered: 2,
    unique_opened: 1,
  });
});

t.test('unique opens and clicks, and attempted, count once across batches and runs', async (t) => {
  const team = await app.createTeam('Once');
  const email = await metricEmail(runtime, team.teamId, newId(), ['r@x.test']);
  await eventAt(runtime, '2026-11-20T11:00:00Z', email, 'email.opened');
  await eventAt(runtime, '2026-11-20T11:00:01Z', email, 'email.suppressed', { to: ['r@x.test'] });
  await rollUpAll();
  await eventAt(runtime, '2026-11-20T12:00:00Z', email, 'email.opened');
  await eventAt(runtime, '2026-11-20T12:00:01Z', email, 'email.failed', { to: ['r@x.test'] });
  await eventAt(runtime, '2026-11-20T12:00:02Z', email, 'email.clicked');
  await eventAt(runtime, '2026-11-20T12:00:03Z', email, 'email.clicked');
  await rollUpAll();
  t.same(await totalsOf(team.teamId, { metrics: 'opened,unique_opened,clicked,unique_clicked,attempted' }), {
    opened: 2,
    unique_opened: 1,
    clicked: 2,
    unique_clicked: 1,
    attempted: 1,
  });
  t.same(
    await totalsOf(team.teamId, { start_date: '2026-11-20T12:00:00Z', metrics: 'opened,unique_opened,attempted' }),
    { opened: 1, unique_opened: 0, attempted: 0 },
    'counted in the minute of the first',
  );
});

t.test('two roll-ups at once count every event exactly once', async (t) => {
  const team = await app.createTeam('Concurrent');
  const email = await metricEmail(runtime, team.teamId, newId(), ['r@x.test']);
  for (let i = 0; i < 120; i++)
    await eventAt(
      runtime,
      `2026-11-20T13:${String(i % 60).padStart(2, '0')}:00Z`,
      email,
      i % 3 === 0 ? 'email.opened' : 'email.delivered',
    );
  const rollups = [0, 1, 2].map(() => new MetricsRollup({ knex, clock: runtime.clock, batchSize: 7 }));
  const until = new Date(Date.now() + 60_000);
  const results = await Promise.all(rollups.map((r) => r.run({ until })));
  t.equal(
    results.reduce((sum, r) => sum + r.events, 0),
    120,
    'the events were shared out, none counted twice',
  );
  t.same(await totalsOf(team.teamId, { metrics: 'delivered,opened,unique_opened' }), {
    delivered: 80,
    opened: 40,
    unique_opened: 1,
  });
});

t.test('a crash inside a batch leaves nothing half-counted', async (t) => {
  const team = await app.createTeam('Crash');
  const email = await metricEmail(runtime, team.teamId, newId(), ['r@x.test']);
  for (let i = 0; i < 5; i++) await eventAt(runtime, '2026-11-20T14:00:00Z', email, 'email.opened');
  const rollup = new MetricsRollup({ knex, clock: runtime.clock, batchSize: 3 });
  const before = await rollup.repository.readState();
  const save = rollup.repository.saveState.bind(rollup.repository);
  rollup.repository.saveState = async () => {
    throw new Error('power cut');
  };
  await t.rejects(rollup.run({ until: new Date(Date.now() + 60_000) }), /power cut/);
  t.same(await rollup.repository.readState(), before, 'the cursor did not move');
  t.same(
    await totalsOf(team.teamId, { metrics: 'opened,unique_opened' }),
    { opened: 0, unique_opened: 0 },
    'no bucket and no first-seen row was kept',
  );
  rollup.repository.saveState = save;
  t.match(await rollup.run({ until: new Date(Date.now() + 60_000) }), { events: 5 });
  t.same(await totalsOf(team.teamId, { metrics: 'opened,unique_opened' }), { opened: 5, unique_opened: 1 });
});

t.test('the settle time: events minted in the last minute wait for the next run', async (t) => {
  const team = await app.createTeam('Settle');
  const email = await metricEmail(runtime, team.teamId, newId(), ['r@x.test']);
  await eventAt(runtime, '2026-11-20T15:00:00Z', email, 'email.delivered');
  const rollup = new MetricsRollup({ knex, clock: runtime.clock });
  const before = await rollup.repository.readState();
  t.match(await rollup.run(), { events: 0 }, 'its id is younger than the settle time');
  t.same(
    await rollup.repository.readState(),
    before,
    'data_as_of never moves back (earlier tests rolled up to the next minute)',
  );
  t.same(await totalsOf(team.teamId, { metrics: 'delivered' }), { delivered: 0 });
  await rollUpAll();
  t.same(await totalsOf(team.teamId, { metrics: 'delivered' }), { delivered: 1 });
});

t.test('the lowest id of a millisecond sorts after every earlier id and before later ones', async (t) => {
  const bound = lowestIdAt(Date.parse('2026-11-20T15:00:00Z'));
  t.match(bound, /^[0-9a-f]{8}-[0-9a-f]{4}-7000-8000-000000000000$/);
  t.ok(lowestIdAt(Date.parse('2026-11-20T14:59:59.999Z')) < bound);
  t.ok(newId() > bound);
});

t.test('retention: buckets by the minute they count, first-seen rows by their time', async (t) => {
  const free = await app.createTeam('Free');
  const pro = await app.createTeam('Pro', 'pro');
  const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);
  const freeEmail = await metricEmail(runtime, free.teamId, newId(), ['r@x.test']);
  const proEmail = await metricEmail(runtime, pro.teamId, newId(), ['r@x.test']);
  await eventAt(runtime, daysAgo(40), freeEmail, 'email.opened');
  await eventAt(runtime, daysAgo(20), freeEmail, 'email.delivered');
  await eventAt(runtime, daysAgo(40), proEmail, 'email.opened');
  await rollUpAll();
  const count = async (table: string, teamId: string) =>
    Number(((await knex(table).where({ team_id: teamId }).count({ n: '*' })) as Array<{ n: number | string }>)[0]!.n);
  t.equal(await count('metric_buckets', free.teamId), 2);
  const scheduler = startScheduler(runtime);
  try {
    const purged = await scheduler.runNow('purge-metrics');
    t.match(purged, { buckets: 1, firstSeen: 1 });
  } finally {
    await scheduler.stop();
  }
  t.equal(await count('metric_buckets', free.teamId), 1, 'the 20-day-old bucket stays on the free plan (30 days)');
  t.equal(await count('metric_first_seen', free.teamId), 0);
  t.equal(await count('metric_buckets', pro.teamId), 1, 'the pro plan keeps 40 days');
});

t.test('the jobs: roll-up every minute, purge hourly', async (t) => {
  const rollup = jobs.find((job) => job.name === 'rollup-metrics');
  t.equal(rollup?.cron, '10 * * * * *');
  t.match(jobs.find((job) => job.name === 'purge-metrics')?.cron, /^\d+ \* \* \* \*$/);
  const scheduler = startScheduler(runtime);
  try {
    t.match(await scheduler.runNow('rollup-metrics'), { events: Number, buckets: Number, batches: Number });
  } finally {
    await scheduler.stop();
  }
});
