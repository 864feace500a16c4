import t from 'tap';
import { metricsQuerySchema } from '../../../../core/events/metrics/metric-query.schemas.js';
import { MetricsService } from '../../../../core/events/metrics/metric.service.js';
import { newId } from '../../../../lib/ids.js';
import { eventAt, metricEmail } from '../../../helpers/metric-events.js';
import { startTestApp } from '../../../helpers/test-app.js';

/**
 * Reports over buckets: each dimension and granularity, in UTC and in Pacific/Auckland across
 * the end of its daylight saving time (5 April 2026, 03:00 NZDT becomes 02:00 NZST, so that
 * day has 25 hours), with the report's clock fixed after the events.
 */
const app = await startTestApp();
t.teardown(() => app.close());
const { runtime } = app;
const reporter = new MetricsService({ knex: runtime.db.knex, clock: { now: () => new Date('2026-05-01T00:00:00Z') } });
const team = await app.createTeam('Report');
const [d1, d2] = [newId(), newId()];
const first = await metricEmail(runtime, team.teamId, d1, ['one@x.test']);
const second = await metricEmail(runtime, team.teamId, d2, ['two@x.test']);
await eventAt(runtime, '2026-04-04T10:30:00Z', first, 'email.delivered'); // Apr 4 UTC; Apr 4 23:30 NZDT
await eventAt(runtime, '2026-04-04T11:30:00Z', first, 'email.delivered'); // Apr 4 UTC; Apr 5 00:30 NZDT
await eventAt(runtime, '2026-04-05T11:30:00Z', second, 'email.delivered'); // Apr 5 UTC; Apr 5 23:30 NZST
await eventAt(runtime, '2026-04-05T12:30:00Z', second, 'email.delivered'); // Apr 5 UTC; Apr 6 00:30 NZST
await eventAt(runtime, '2026-04-05T12:31:00Z', second, 'email.opened');
await runtime.services.metrics.rollUp({ until: new Date(Date.now() + 60_000) });

const report = (raw: Record<string, string | string[]>) =>
  reporter.report(
    { id: team.teamId, plan: { limits: { retention_days: 30 } } },
    metricsQuerySchema.parse({ start_date: '2026-04-04', end_date: '2026-04-06', metrics: 'delivered', ...raw }),
  );
const periods = async (raw: Record<string, string>) =>
  (await report({ dimensions: 'period', ...raw })).data!.map((row) => [
    row.period!.toISOString(),
    row.values.delivered,
  ]);

t.test('daily in UTC and in Auckland: the day boundary moves events to another day', async (t) => {
  t.same(await periods({}), [
    ['2026-04-04T00:00:00.000Z', 2],
    ['2026-04-05T00:00:00.000Z', 2],
    ['2026-04-06T00:00:00.000Z', 0],
  ]);
  const auckland = await report({ dimensions: 'period', timezone: 'Pacific/Auckland' });
  t.equal(
    auckland.start.toISOString(),
    '2026-04-03T11:00:00.000Z',
    'start_date is midnight of 4 April in Auckland (NZDT)',
  );
  t.equal(auckland.end.toISOString(), '2026-04-06T12:00:00.000Z', 'end_date is the end of 6 April (NZST)');
  t.same(await periods({ timezone: 'Pacific/Auckland' }), [
    ['2026-04-03T11:00:00.000Z', 1],
    ['2026-04-04T11:00:00.000Z', 2],
    ['2026-04-05T12:00:00.000Z', 1],
  ]);
});

t.test('hourly, weekly (from Monday) and monthly in Auckland', async (t) => {
  const hourly = await periods({
    granularity: 'hourly',
    timezone: 'Pacific/Auckland',
    start_date: '2026-04-05T02:00:00+13:00',
    end_date: '2026-04-05T04:00:00+12:00',
  });
  t.same(
    hourly,
    [
      ['2026-04-04T13:00:00.000Z', 0],
      ['2026-04-04T14:00:00.000Z', 0],
      ['2026-04-04T15:00:00.000Z', 0],
    ],
    '02:00 NZDT, 02:00 NZST (the repeated hour), then 03:00 NZST; the end is exclusive',
  );
  t.same(
    await periods({ granularity: 'weekly', timezone: 'Pacific/Auckland' }),
    [
      ['2026-03-29T11:00:00.000Z', 3],
      ['2026-04-05T12:00:00.000Z', 1],
    ],
    'Saturday 4 and Sunday 5 April are in the week of Monday 30 March; Monday 6 April starts the next',
  );
  t.same(await periods({ granularity: 'weekly' }), [
    ['2026-03-30T00:00:00.000Z', 4],
    ['2026-04-06T00:00:00.000Z', 0],
  ]);
  t.same(
    await periods({ granularity: 'monthly', timezone: 'Pacific/Auckland' }),
    [['2026-03-31T11:00:00.000Z', 4]],
    'April, from midnight NZDT',
  );
});

t.test('domain and email dimensions, alone and with period; filters', async (t) => {
  const byDomain = await report({ dimensions: 'domain' });
  t.same(
    byDomain.data!.map((row) => [row.domainId, row.values.delivered]).sort(),
    [
      [d1, 2],
      [d2, 2],
    ].sort(),
  );
  const byEmail = await report({ dimensions: ['email', 'period'], timezone: 'Pacific/Auckland' });
  t.same(
    byEmail.data!.map((row) => [row.period!.toISOString(), row.emailId, row.values.delivered]),
    [
      ['2026-04-03T11:00:00.000Z', first.id, 1],
      ['2026-04-04T11:00:00.000Z', first.id, 1],
      ['2026-04-04T11:00:00.000Z', second.id, 1],
      ['2026-04-05T12:00:00.000Z', second.id, 1],
    ],
    'with other dimensions only combinations with data appear',
  );
  const filtered = await report({ dimensions: 'period,domain', domain_id: d2, metrics: 'delivered,opened,open_rate' });
  t.same(filtered.totals, { delivered: 2, opened: 1, open_rate: 0.5 });
  t.same(
    filtered.data!.map((row) => [row.period!.toISOString(), row.domainId, row.values]),
    [['2026-04-05T00:00:00.000Z', d2, { delivered: 2, opened: 1, open_rate: 0.5 }]],
  );
  t.same((await report({ email_id: `${first.id},${newId()}` })).totals, { delivered: 2 });
});

t.test('broadcasts do not exist yet: no data under a broadcast, every email outside one', async (t) => {
  const byBroadcast = await report({ dimensions: 'broadcast' });
  t.same(
    byBroadcast.data!.map((row) => [row.broadcastId, row.broadcastName, row.values.delivered]),
    [[null, null, 4]],
  );
  const one = await report({ dimensions: 'broadcast', broadcast_id: newId() });
  t.same(one.totals, { delivered: 0 });
  t.same(one.data, []);
});

t.test('no dimension: totals only, no data; every metric present, 0 where nothing happened', async (t) => {
  const all = await reporter.report(
    { id: team.teamId, plan: { limits: { retention_days: 30 } } },
    metricsQuerySchema.parse({ start_date: '2026-04-04', end_date: '2026-04-06' }),
  );
  t.equal(all.data, undefined);
  t.equal(Object.keys(all.totals).length, 21);
  t.match(all.totals, { delivered: 4, opened: 1, sent: 0, received: 0, delivery_rate: 0, open_rate: 0.25 });
  t.ok(all.dataAsOf, 'data_as_of is set once the roll-up ran');
});
