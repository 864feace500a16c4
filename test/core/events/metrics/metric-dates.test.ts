import t from 'tap';
import { parseDateInput, resolveRange } from '../../../../core/events/metrics/metric-dates.js';

const iso = (ms: number) => new Date(ms).toISOString();
const NOW = Date.parse('2026-11-23T10:17:42.500Z');

t.test('ISO 8601 dates, instants with Z or an offset, and wall-clock times', async (t) => {
  t.same(parseDateInput('2026-07-01'), { kind: 'date', year: 2026, month: 7, day: 1 });
  t.same(parseDateInput('2026-07-01T10:00:00Z'), { kind: 'instant', at: new Date('2026-07-01T10:00:00Z') });
  t.same(parseDateInput('2026-07-01T10:00:00.25+05:30'), { kind: 'instant', at: new Date('2026-07-01T04:30:00.250Z') });
  t.same(parseDateInput('2026-07-01T10:00-0800'), { kind: 'instant', at: new Date('2026-07-01T18:00:00Z') });
  t.same(parseDateInput('2026-07-01T10:00'), {
    kind: 'local',
    year: 2026,
    month: 7,
    day: 1,
    hour: 10,
    minute: 0,
    second: 0,
    millisecond: 0,
  });
  for (const bad of [
    '2026-02-30',
    '2026-13-01',
    '2026-07-01T24:00:00Z',
    '2026-07-01T10:60Z',
    '07/01/2026',
    'yesterday',
    '2026-07-01T10:00:00+25:00',
    '2026-7-1',
    '',
  ]) {
    t.equal(parseDateInput(bad), undefined, `refused: ${JSON.stringify(bad)}`);
  }
});

t.test('defaults: end is now down to the last completed minute, start six days before', async (t) => {
  const range = resolveRange({ timezone: 'UTC' }, NOW)!;
  t.equal(iso(range.end), '2026-11-23T10:17:00.000Z');
  t.equal(iso(range.start), '2026-11-17T10:17:00.000Z');
});

t.test('a future end is clamped to now; starts are floored to their minute', async (t) => {
  const range = resolveRange(
    { timezone: 'UTC', startDate: parseDateInput('2026-11-23T09:00:30Z'), endDate: parseDateInput('2027-01-01') },
    NOW,
  )!;
  t.equal(iso(range.end), '2026-11-23T10:17:00.000Z');
  t.equal(iso(range.start), '2026-11-23T09:00:00.000Z');
});

t.test('a date alone is a whole day in the requested zone; an end date includes its day', async (t) => {
  const utc = resolveRange(
    { timezone: 'UTC', startDate: parseDateInput('2026-11-01'), endDate: parseDateInput('2026-11-02') },
    NOW,
  )!;
  t.same([iso(utc.start), iso(utc.end)], ['2026-11-01T00:00:00.000Z', '2026-11-03T00:00:00.000Z']);
  const auckland = resolveRange(
    { timezone: 'Pacific/Auckland', startDate: parseDateInput('2026-11-01'), endDate: parseDateInput('2026-11-01') },
    NOW,
  )!;
  t.same(
    [iso(auckland.start), iso(auckland.end)],
    ['2026-10-31T11:00:00.000Z', '2026-11-01T11:00:00.000Z'],
    'one day, NZDT',
  );
  const local = resolveRange(
    {
      timezone: 'America/Los_Angeles',
      startDate: parseDateInput('2026-11-01T09:00'),
      endDate: parseDateInput('2026-11-01T17:00:00'),
    },
    NOW,
  )!;
  t.same(
    [iso(local.start), iso(local.end)],
    ['2026-11-01T17:00:00.000Z', '2026-11-02T01:00:00.000Z'],
    'wall-clock times in the zone (PST that afternoon)',
  );
  const instant = resolveRange({ timezone: 'Asia/Tokyo', startDate: parseDateInput('2026-11-01T00:00:00Z') }, NOW)!;
  t.equal(iso(instant.start), '2026-11-01T00:00:00.000Z', 'an instant ignores the zone');
});

t.test('start after end is refused; equal is an empty range', async (t) => {
  t.equal(
    resolveRange(
      { timezone: 'UTC', startDate: parseDateInput('2026-11-10'), endDate: parseDateInput('2026-11-01') },
      NOW,
    ),
    undefined,
  );
  t.equal(
    resolveRange({ timezone: 'UTC', startDate: parseDateInput('2026-11-24') }, NOW),
    undefined,
    'a start after now',
  );
  const empty = resolveRange({ timezone: 'UTC', startDate: parseDateInput('2026-11-23T10:17:10Z') }, NOW)!;
  t.equal(empty.start, empty.end);
});

t.test('a start before the retention window moves up to it, never past the end', async (t) => {
  const oldest = NOW - 30 * 86_400_000;
  const clamped = resolveRange({ timezone: 'UTC', startDate: parseDateInput('2020-01-01') }, NOW, oldest)!;
  t.equal(iso(clamped.start), '2026-10-24T10:17:00.000Z');
  const gone = resolveRange(
    { timezone: 'UTC', startDate: parseDateInput('2020-01-01'), endDate: parseDateInput('2020-01-02') },
    NOW,
    oldest,
  )!;
  t.same(
    [iso(gone.start), iso(gone.end)],
    ['2020-01-03T00:00:00.000Z', '2020-01-03T00:00:00.000Z'],
    'all of it is gone: an empty range at its end',
  );
});
