import type { Granularity } from './metric.types.js';

/**
 * Wall-clock arithmetic in IANA time zones with nothing but the Intl API. Periods are the
 * zone's own: a day is midnight to midnight local time (23 or 25 hours across a DST change), a
 * week starts on Monday, a month on the 1st. Instants are epoch milliseconds.
 */
export type WallTime = {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
};

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let found = formatters.get(timeZone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, found);
  }
  return found;
}

/** An IANA zone name Intl knows (aliases such as US/Pacific included); UTC offsets are not names. */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z]/.test(name)) return false;
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}

export function wallTime(instant: number, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const millisecond = ((instant % 1000) + 1000) % 1000;
  return {
    year: parts.year!,
    month: parts.month!,
    day: parts.day!,
    hour: parts.hour!,
    minute: parts.minute!,
    second: parts.second!,
    millisecond,
  };
}

const asUtc = (w: WallTime) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.millisecond);

/** The zone's offset from UTC at an instant (local minus UTC). */
export function offsetAt(instant: number, timeZone: string): number {
  return asUtc(wallTime(instant, timeZone)) - instant;
}

/**
 * The instant a wall-clock time happens in a zone. A time that happens twice (clocks set back)
 * gives the first; a time that never happens (clocks set forward past it) is read with the
 * offset before the jump (02:30 in a 02:00-03:00 gap is 03:30), so a day whose midnight falls
 * in a gap starts the moment the clocks jumped.
 */
export function zonedToUtc(wall: WallTime, timeZone: string): number {
  const guess = asUtc(wall);
  const offsets = new Set([
    offsetAt(guess - DAY, timeZone),
    offsetAt(guess, timeZone),
    offsetAt(guess + DAY, timeZone),
  ]);
  const candidates = [...offsets].map((offset) => guess - offset);
  const exact = candidates.filter((instant) => asUtc(wallTime(instant, timeZone)) === guess);
  return exact.length > 0 ? Math.min(...exact) : Math.max(...candidates);
}

/** A calendar date moved by whole days or months (no time zone involved). */
function shiftDate(year: number, month: number, day: number, days: number, months = 0): WallTime {
  const date = new Date(Date.UTC(year, month - 1 + months, day + days));
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: 0,
    minute: 0,
    second: 0,
    millisecond: 0,
  };
}

export function startOfDay(year: number, month: number, day: number, timeZone: string, plusDays = 0): number {
  return zonedToUtc(shiftDate(year, month, day, plusDays), timeZone);
}

/** Start of the period (in the zone) that holds an instant. */
export function periodStart(instant: number, granularity: Granularity, timeZone: string): number {
  const wall = wallTime(instant, timeZone);
  switch (granularity) {
    case 'hourly':
      // Back to the top of the local hour in real time: a repeated hour stays two periods.
      return instant - wall.minute * MINUTE - wall.second * 1000 - wall.millisecond;
    case 'daily':
      return startOfDay(wall.year, wall.month, wall.day, timeZone);
    case 'weekly': {
      const weekday = new Date(Date.UTC(wall.year, wall.month - 1, wall.day)).getUTCDay();
      return startOfDay(wall.year, wall.month, wall.day, timeZone, -((weekday + 6) % 7));
    }
    case 'monthly':
      return startOfDay(wall.year, wall.month, 1, timeZone);
  }
}

/** Start of the period after the one starting at `start`. */
export function nextPeriod(start: number, granularity: Granularity, timeZone: string): number {
  if (granularity === 'hourly') return periodStart(start + HOUR, granularity, timeZone);
  const wall = wallTime(start, timeZone);
  if (granularity === 'monthly') return zonedToUtc(shiftDate(wall.year, wall.month, 1, 0, 1), timeZone);
  return startOfDay(wall.year, wall.month, wall.day, timeZone, granularity === 'daily' ? 1 : 7);
}
