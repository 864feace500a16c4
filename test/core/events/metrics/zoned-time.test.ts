import t from 'tap';
import {
  isTimeZone,
  nextPeriod,
  periodStart,
  startOfDay,
  zonedToUtc,
} from '../../../../core/events/metrics/zoned-time.js';
import type { Granularity } from '../../../../core/events/metrics/metric.types.js';

const iso = (ms: number) => new Date(ms).toISOString();
const at = (value: string) => Date.parse(value);
const start = (instant: string, granularity: Granularity, zone: string) =>
  iso(periodStart(at(instant), granularity, zone));
const next = (instant: string, granularity: Granularity, zone: string) =>
  iso(nextPeriod(at(instant), granularity, zone));

t.test('IANA names, aliases included; offsets and unknown names are not zones', async (t) => {
  for (const zone of ['UTC', 'Europe/Paris', 'America/Los_Angeles', 'US/Pacific', 'Asia/Kolkata', 'Etc/GMT+5'])
    t.ok(isTimeZone(zone), zone);
  for (const zone of ['', '+05:30', 'Mars/Olympus', 'Europe/', '12']) t.notOk(isTimeZone(zone), zone || '(empty)');
});

t.test('UTC: hours, days, Monday weeks, months', async (t) => {
  t.equal(start('2026-01-01T12:34:56.789Z', 'hourly', 'UTC'), '2026-01-01T12:00:00.000Z');
  t.equal(start('2026-01-01T12:34:56.789Z', 'daily', 'UTC'), '2026-01-01T00:00:00.000Z');
  t.equal(
    start('2026-01-01T12:00:00Z', 'weekly', 'UTC'),
    '2025-12-29T00:00:00.000Z',
    '1 January 2026 is a Thursday: its week began on Monday 29 December',
  );
  t.equal(
    start('2026-01-04T23:59:00Z', 'weekly', 'UTC'),
    '2025-12-29T00:00:00.000Z',
    'Sunday is the last day of the week',
  );
  t.equal(start('2026-01-05T00:00:00Z', 'weekly', 'UTC'), '2026-01-05T00:00:00.000Z', 'Monday starts the next');
  t.equal(start('2026-02-28T23:59:00Z', 'monthly', 'UTC'), '2026-02-01T00:00:00.000Z');
  t.equal(next('2026-12-01T00:00:00Z', 'monthly', 'UTC'), '2027-01-01T00:00:00.000Z');
  t.equal(next('2025-12-29T00:00:00Z', 'weekly', 'UTC'), '2026-01-05T00:00:00.000Z');
});

t.test('America/Los_Angeles: days of 23 and 25 hours at the DST changes', async (t) => {
  const zone = 'America/Los_Angeles';
  t.equal(iso(startOfDay(2026, 3, 8, zone)), '2026-03-08T08:00:00.000Z', 'spring forward day starts in PST');
  t.equal(next('2026-03-08T08:00:00Z', 'daily', zone), '2026-03-09T07:00:00.000Z', '23 hours later, in PDT');
  t.equal(iso(startOfDay(2026, 11, 1, zone)), '2026-11-01T07:00:00.000Z');
  t.equal(next('2026-11-01T07:00:00Z', 'daily', zone), '2026-11-02T08:00:00.000Z', '25 hours later');
  t.equal(start('2026-11-01T08:30:00Z', 'hourly', zone), '2026-11-01T08:00:00.000Z', '01:30 PDT');
  t.equal(
    start('2026-11-01T09:30:00Z', 'hourly', zone),
    '2026-11-01T09:00:00.000Z',
    '01:30 PST: the repeated hour is its own period',
  );
  t.equal(next('2026-11-01T08:00:00Z', 'hourly', zone), '2026-11-01T09:00:00.000Z');
  t.equal(start('2026-03-15T12:00:00Z', 'monthly', zone), '2026-03-01T08:00:00.000Z', 'March starts in PST');
  t.equal(next('2026-03-01T08:00:00Z', 'monthly', zone), '2026-04-01T07:00:00.000Z', 'April starts in PDT');
  t.equal(
    start('2026-03-09T06:59:00Z', 'weekly', zone),
    '2026-03-02T08:00:00.000Z',
    'Sunday 8 March, 23:59 PDT, is still in the week of Monday 2 March',
  );
});

t.test('Pacific/Auckland: southern-hemisphere DST', async (t) => {
  const zone = 'Pacific/Auckland';
  t.equal(iso(startOfDay(2026, 4, 5, zone)), '2026-04-04T11:00:00.000Z', 'NZDT, UTC+13');
  t.equal(next('2026-04-04T11:00:00Z', 'daily', zone), '2026-04-05T12:00:00.000Z', 'NZST, UTC+12: a 25-hour day');
  t.equal(iso(startOfDay(2026, 9, 27, zone)), '2026-09-26T12:00:00.000Z');
  t.equal(next('2026-09-26T12:00:00Z', 'daily', zone), '2026-09-27T11:00:00.000Z', 'a 23-hour day');
  t.equal(start('2026-01-01T10:59:00Z', 'daily', zone), '2025-12-31T11:00:00.000Z', '23:59 on 31 December local');
  t.equal(start('2026-01-01T11:00:00Z', 'daily', zone), '2026-01-01T11:00:00.000Z', 'midnight of 2 January local');
});

t.test('half-hour offsets: hours start at :30 UTC in Asia/Kolkata', async (t) => {
  t.equal(start('2026-11-20T10:45:00Z', 'hourly', 'Asia/Kolkata'), '2026-11-20T10:30:00.000Z');
  t.equal(start('2026-11-20T18:29:00Z', 'daily', 'Asia/Kolkata'), '2026-11-19T18:30:00.000Z');
  t.equal(start('2026-11-20T18:30:00Z', 'daily', 'Asia/Kolkata'), '2026-11-20T18:30:00.000Z');
});

t.test('a midnight that does not exist: the day starts when the clocks jump', async (t) => {
  // Chile moves from UTC-4 to UTC-3 at 00:00 on 6 September 2026: the day begins at 01:00.
  t.equal(iso(startOfDay(2026, 9, 6, 'America/Santiago')), '2026-09-06T04:00:00.000Z');
  t.equal(start('2026-09-06T12:00:00Z', 'daily', 'America/Santiago'), '2026-09-06T04:00:00.000Z');
  t.equal(iso(startOfDay(2026, 9, 5, 'America/Santiago')), '2026-09-05T04:00:00.000Z');
});

t.test('wall-clock times: a repeated time is its first occurrence, a skipped one moves forward', async (t) => {
  const wall = (month: number, day: number, hour: number, minute: number) => ({
    year: 2026,
    month,
    day,
    hour,
    minute,
    second: 0,
    millisecond: 0,
  });
  t.equal(iso(zonedToUtc(wall(11, 1, 1, 30), 'America/Los_Angeles')), '2026-11-01T08:30:00.000Z', '01:30 PDT, not PST');
  t.equal(
    iso(zonedToUtc(wall(3, 8, 2, 30), 'America/Los_Angeles')),
    '2026-03-08T10:30:00.000Z',
    '02:30 does not exist: 03:30 PDT',
  );
  t.equal(iso(zonedToUtc(wall(7, 1, 9, 0), 'Europe/Paris')), '2026-07-01T07:00:00.000Z');
});
