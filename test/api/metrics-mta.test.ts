import { request as httpRequest } from 'node:http';
import t from 'tap';
import type { Granularity } from '../../core/events/metrics/metric.types.js';
import { newId } from '../../lib/ids.js';
import { movableClock } from '../helpers/clock.js';
import { request } from '../helpers/http.js';
import { eventAt, metricEmail } from '../helpers/metric-events.js';
import { startMtaFixture } from '../helpers/mta-fixture.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * Acceptance: a known set of messages goes through the MTA to local sinks and the mailbox
 * simulator (delivered, bounced, complained, suppressed), some are opened and clicked through
 * the tracking endpoints, one more email has events at chosen times two days ago; after the
 * roll-up, GET /emails/metrics answers the exact counts and rates with each dimension and each
 * granularity, in UTC and in Asia/Kolkata (UTC+5:30: the day boundary moves a click to the
 * next day, and hours start at :30 UTC).
 */
const clock = movableClock();
const fx = await startMtaFixture({ sinkHosts: ['127.0.0.40'], clock });
t.teardown(() => fx.close());
const { runtime } = fx.app;
const [sink] = fx.sinks as [(typeof fx.sinks)[0]];
const simulator = runtime.config.sandbox.simulatorDomain;
fx.dns.add(
  { type: 'MX', name: 'dest.test', exchange: 'mx.dest.test', priority: 10 },
  { type: 'A', name: 'mx.dest.test', address: '127.0.0.40' },
);
sink.faults.push({
  stage: 'rcpt',
  code: 550,
  message: '5.1.1 The email account that you tried to reach does not exist',
  recipient: 'gone@dest.test',
});
await runtime.services.domains.repository.update(fx.domainId, { openTracking: true, clickTracking: true });
const secondDomainId = await addVerifiedDomain(fx.app, fx.dns, fx.token, 'second.test');

const HTML = '<html><body><p>See <a href="https://shop.example/sale">the sale</a>.</p></body></html>';
/** A tracking token of the message as it arrived at the sink. */
function token(recipient: string, kind: 'o' | 'c'): string {
  const raw = sink.messages.find((m) => m.to.includes(recipient))!.data.toString('latin1');
  const decoded = raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return new RegExp(`/${kind}/([A-Za-z0-9_-]+)`).exec(decoded)![1]!;
}
function hit(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${fx.app.url}${path}`,
      { headers: { host: runtime.config.tracking.host, 'user-agent': 'Mail/1.0' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const DAY_BEFORE = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
let rolledUpTo = 0;
const ids: Record<string, string> = {};
t.before(async () => {
  ids.e1 = await fx.send({ to: ['ok1@dest.test'], html: HTML });
  ids.e2 = await fx.send({ to: ['ok2@dest.test'], html: HTML });
  ids.e3 = await fx.send({ to: ['gone@dest.test'] });
  ids.e4 = await fx.send({ to: [`delivered@${simulator}`] });
  ids.e5 = await fx.send({ to: [`bounced@${simulator}`] });
  ids.e6 = await fx.send({ to: [`complained@${simulator}`] });
  ids.e7 = await fx.send({ to: [`suppressed@${simulator}`] });
  const second = await request(fx.app.url, '/emails', {
    method: 'POST',
    token: fx.token,
    body: { from: 'hi@second.test', to: 'ok3@dest.test', subject: 'Hi', text: 'Hi' },
  });
  ids.e8 = second.body.id;
  const outcomes: Record<string, string[]> = {
    e1: ['email.delivered'],
    e2: ['email.delivered'],
    e3: ['email.bounced'],
    e4: ['email.delivered'],
    e5: ['email.bounced'],
    e6: ['email.complained'],
    e7: ['email.suppressed'],
    e8: ['email.delivered'],
  };
  for (const [name, types] of Object.entries(outcomes)) await fx.waitForEvents(ids[name]!, types);
  for (const path of [
    `/o/${token('ok1@dest.test', 'o')}`,
    `/o/${token('ok1@dest.test', 'o')}`,
    `/c/${token('ok1@dest.test', 'c')}`,
    `/o/${token('ok2@dest.test', 'o')}`,
  ]) {
    const status = await hit(path);
    if (status !== 200 && status !== 302) throw new Error(`tracking ${path}: ${status}`);
  }

  // e9, two days ago: sent and delivered at 16:00 UTC, opened at 17:00, clicked at 20:00 (01:30 IST the next day).
  const e9 = await metricEmail(runtime, fx.teamId, fx.domainId, ['ok9@dest.test']);
  ids.e9 = e9.id;
  await eventAt(runtime, `${DAY_BEFORE}T16:00:00Z`, e9, 'email.sent');
  await eventAt(runtime, `${DAY_BEFORE}T16:00:30Z`, e9, 'email.delivered');
  await eventAt(runtime, `${DAY_BEFORE}T17:00:00Z`, e9, 'email.opened');
  await eventAt(runtime, `${DAY_BEFORE}T20:00:00Z`, e9, 'email.clicked');

  // Only completed minutes are reported (a report ends at "now", down to the minute): the
  // appliance's clock moves past the end of the minute of the last event instead of the test
  // waiting up to a minute for it, and the roll-up counts up to that end.
  const last = Math.max(
    ...(await runtime.services.eventLog.list(fx.teamId, { limit: 1000 })).map((e) =>
      Number(BigInt(`0x${e.id.replace(/-/g, '').slice(0, 12)}`)),
    ),
  );
  const completed = Math.floor(last / 60_000) * 60_000 + 60_000;
  clock.advanceTo(completed + 200);
  rolledUpTo = completed;
  await runtime.services.metrics.rollUp({ until: new Date(rolledUpTo) });
});

const metrics = async (query: string) => {
  const res = await request(fx.app.url, `/emails/metrics?start_date=${DAY_BEFORE}&${query}`, { token: fx.token });
  if (res.status !== 200) throw new Error(`metrics refused: ${res.text}`);
  return res.body;
};
const zeros = { received: 0, bounced_transient: 0, bounced_undetermined: 0, delivery_delayed: 0, failed: 0 };
/** Exact counts, with each rate as the spec defines it: a fraction, 0 without a denominator, at most 1. */
const rate = (numerator: number, denominator: number) => (denominator ? Math.min(1, numerator / denominator) : 0);
const withRates = (c: Record<string, number>) => ({
  ...zeros,
  ...c,
  delivery_rate: rate(c.delivered!, c.sent!),
  open_rate: rate(c.opened!, c.delivered!),
  click_rate: rate(c.clicked!, c.delivered!),
  bounce_rate: rate(c.bounced!, c.sent!),
  complaint_rate: rate(c.complained!, c.sent!),
});
const TOTAL = withRates({
  sent: 9,
  attempted: 9,
  delivered: 6,
  bounced: 2,
  bounced_permanent: 2,
  complained: 1,
  suppressed: 1,
  opened: 4,
  unique_opened: 3,
  clicked: 2,
  unique_clicked: 2,
});
const SENDER = withRates({
  sent: 8,
  attempted: 8,
  delivered: 5,
  bounced: 2,
  bounced_permanent: 2,
  complained: 1,
  suppressed: 1,
  opened: 4,
  unique_opened: 3,
  clicked: 2,
  unique_clicked: 2,
});
const SECOND = withRates({
  sent: 1,
  attempted: 1,
  delivered: 1,
  bounced: 0,
  bounced_permanent: 0,
  complained: 0,
  suppressed: 0,
  opened: 0,
  unique_opened: 0,
  clicked: 0,
  unique_clicked: 0,
});
const one = (c: Record<string, number>) =>
  withRates({
    sent: 1,
    attempted: 1,
    delivered: 0,
    bounced: 0,
    bounced_permanent: 0,
    complained: 0,
    suppressed: 0,
    opened: 0,
    unique_opened: 0,
    clicked: 0,
    unique_clicked: 0,
    ...c,
  });
const PER_EMAIL: Record<string, ReturnType<typeof withRates>> = {
  e1: one({ delivered: 1, opened: 2, unique_opened: 1, clicked: 1, unique_clicked: 1 }),
  e2: one({ delivered: 1, opened: 1, unique_opened: 1 }),
  e3: one({ bounced: 1, bounced_permanent: 1 }),
  e4: one({ delivered: 1 }),
  e5: one({ bounced: 1, bounced_permanent: 1 }),
  e6: one({ delivered: 1, complained: 1 }),
  e7: one({ suppressed: 1 }),
  e8: one({ delivered: 1 }),
  e9: one({ delivered: 1, opened: 1, unique_opened: 1, clicked: 1, unique_clicked: 1 }),
};

const ZONES = { UTC: 0, 'Asia/Kolkata': 330 * 60_000 } as const;

for (const [zone, offset] of Object.entries(ZONES)) {
  t.test(`${zone}: totals, data_as_of, no data without dimensions`, async (t) => {
    const body = await metrics(`timezone=${zone}`);
    t.same(body.totals, TOTAL);
    t.equal(body.data, undefined);
    t.equal(
      body.data_as_of,
      new Date(rolledUpTo).toISOString(),
      'the end of the last completed minute the roll-up counted',
    );
    t.equal(
      body.start_date,
      new Date(Date.parse(`${DAY_BEFORE}T00:00:00Z`) - offset).toISOString(),
      'a date alone starts at midnight in the zone',
    );
  });

  t.test(`${zone}: by domain and by email`, async (t) => {
    const byDomain = await metrics(`timezone=${zone}&dimensions=domain`);
    t.same(byDomain.data, [
      { domain_id: secondDomainId, domain_name: 'second.test', ...SECOND },
      { domain_id: fx.domainId, domain_name: 'sender.test', ...SENDER },
    ]);
    const byEmail = await metrics(`timezone=${zone}&dimensions=email`);
    const expected = Object.entries(PER_EMAIL).map(([name, values]) => ({ email_id: ids[name], ...values }));
    t.same(
      byEmail.data,
      expected.sort((a, b) => a.email_id!.localeCompare(b.email_id!)),
    );
    const filtered = await metrics(
      `timezone=${zone}&dimensions=email&email_id=${ids.e1},${ids.e9}&metrics=opened,unique_opened,click_rate`,
    );
    t.same(filtered.totals, { opened: 3, unique_opened: 2, click_rate: 1 });
  });

  for (const granularity of ['hourly', 'daily', 'weekly', 'monthly'] as const) {
    t.test(`${zone}: by period, ${granularity}`, async (t) => {
      const body = await metrics(
        `timezone=${zone}&dimensions=period&granularity=${granularity}&metrics=sent,delivered,opened,unique_opened,clicked,delivery_rate`,
      );
      const rows = body.data as Array<Record<string, number | string>>;
      const starts = rows.map((row) => Date.parse(row.period as string));
      t.ok(
        starts.every(
          (start, i) => periodOf(start, granularity, offset) === start && (i === 0 || start > starts[i - 1]!),
        ),
        'consecutive periods of the zone',
      );
      t.equal(
        starts[0],
        periodOf(Date.parse(body.start_date), granularity, offset),
        'from the period holding start_date',
      );
      t.same(
        rows.filter((row) => row.sent || row.delivered || row.opened || row.clicked),
        await expectedPeriods(granularity, offset),
      );
    });
  }
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The test's own period arithmetic, for zones without DST (a fixed offset). */
function periodOf(ms: number, granularity: Granularity, offset: number): number {
  const local = ms + offset;
  if (granularity === 'hourly') return Math.floor(local / HOUR) * HOUR - offset;
  const day = Math.floor(local / DAY);
  if (granularity === 'daily') return day * DAY - offset;
  if (granularity === 'weekly') return (day - ((day + 3) % 7)) * DAY - offset; // 1 January 1970 was a Thursday
  const date = new Date(local);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1) - offset;
}

/** Non-empty periods from the events as recorded (their own times), each email counted once where it should be. */
async function expectedPeriods(granularity: Granularity, offset: number) {
  const events = (await runtime.services.eventLog.list(fx.teamId, { limit: 1000 })).reverse();
  const periods = new Map<
    number,
    { sent: number; delivered: number; opened: number; unique_opened: number; clicked: number }
  >();
  const opened = new Set<string>();
  for (const event of events) {
    const period = periodOf(event.createdAt.getTime(), granularity, offset);
    const row = periods.get(period) ?? { sent: 0, delivered: 0, opened: 0, unique_opened: 0, clicked: 0 };
    periods.set(period, row);
    const emailId = event.data.email_id as string;
    if (event.type === 'email.sent') row.sent++;
    if (event.type === 'email.delivered') row.delivered++;
    if (event.type === 'email.clicked') row.clicked++;
    if (event.type === 'email.opened') {
      row.opened++;
      if (!opened.has(emailId)) row.unique_opened++;
      opened.add(emailId);
    }
  }
  return [...periods.entries()]
    .filter(([, c]) => c.sent || c.delivered || c.opened || c.clicked)
    .sort(([a], [b]) => a - b)
    .map(([period, c]) => ({ period: new Date(period).toISOString(), ...c, delivery_rate: rate(c.delivered, c.sent) }));
}

t.test(
  'the day boundary: in UTC the open and the click of e9 share a day, in Kolkata the click is the next day',
  async (t) => {
    const query = (zone: string) =>
      metrics(`timezone=${zone}&dimensions=period&email_id=${ids.e9}&metrics=opened,clicked`);
    const nonEmpty = (body: { data: Array<Record<string, number>> }) =>
      body.data.filter((row) => row.opened || row.clicked);
    t.same(nonEmpty(await query('UTC')), [{ period: `${DAY_BEFORE}T00:00:00.000Z`, opened: 1, clicked: 1 }]);
    const dayStart = Date.parse(`${DAY_BEFORE}T00:00:00Z`) - ZONES['Asia/Kolkata'];
    t.same(nonEmpty(await query('Asia/Kolkata')), [
      { period: new Date(dayStart).toISOString(), opened: 1, clicked: 0 },
      { period: new Date(dayStart + DAY).toISOString(), opened: 0, clicked: 1 },
    ]);
  },
);

t.test('a domain of another team or an unknown email id: zeros, not an error', async (t) => {
  const body = await metrics(`domain_id=${newId()}&email_id=${newId()}&metrics=sent`);
  t.same(body.totals, { sent: 0 });
});
