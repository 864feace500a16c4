import type { DateInput } from './metric.types.js';
import { startOfDay, zonedToUtc } from './zoned-time.js';

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const MINUTE = 60_000;

/**
 * An ISO 8601 date (`2026-07-01`), a date and time with Z or an offset (an instant), or a date
 * and time without either (a wall-clock time in the requested zone). Undefined when malformed
 * or not a real calendar time (2026-02-30, 24:00).
 */
export function parseDateInput(value: string): DateInput | undefined {
  const m = ISO.exec(value);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day)
    return undefined;
  if (m[4] === undefined) return { kind: 'date', year, month, day };
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const millisecond = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  const zone = m[8];
  if (zone === undefined) return { kind: 'local', year, month, day, hour, minute, second, millisecond };
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
  if (zone === 'Z') return { kind: 'instant', at: new Date(wall) };
  const digits = zone.replace(':', '');
  const offset = (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5))) * MINUTE;
  if (Number(digits.slice(1, 3)) > 23 || Number(digits.slice(3, 5)) > 59) return undefined;
  return { kind: 'instant', at: new Date(digits.startsWith('-') ? wall + offset : wall - offset) };
}

/**
 * The instant a date parameter stands for. A date alone is a whole day in the zone: as a start,
 * its first moment; as an end, the first moment of the next day (ends are exclusive).
 */
export function resolveDateInput(input: DateInput, edge: 'start' | 'end', timeZone: string): number {
  if (input.kind === 'instant') return input.at.getTime();
  if (input.kind === 'local') return zonedToUtc(input, timeZone);
  return startOfDay(input.year, input.month, input.day, timeZone, edge === 'end' ? 1 : 0);
}

export const floorToMinute = (instant: number) => Math.floor(instant / MINUTE) * MINUTE;

export type ResolvedRange = { start: number; end: number };

/**
 * The range a report covers, [start, end) on one-minute bucket boundaries (spec: end_date in
 * the future is clamped to now, then down to the last completed one-minute bucket; start_date
 * defaults to six days before end_date). A start before `oldest` (the plan's retention window:
 * older buckets are gone) is moved up to it, never past the end. Undefined when the start asked
 * for falls after the end.
 */
export function resolveRange(
  query: { startDate?: DateInput; endDate?: DateInput; timezone: string },
  now: number,
  oldest = -Infinity,
): ResolvedRange | undefined {
  const askedEnd = query.endDate ? resolveDateInput(query.endDate, 'end', query.timezone) : now;
  const end = floorToMinute(Math.min(askedEnd, now));
  const askedStart = query.startDate
    ? resolveDateInput(query.startDate, 'start', query.timezone)
    : end - 6 * 24 * 60 * MINUTE;
  // A start inside a minute takes that whole minute: buckets are the smallest unit there is.
  const start = floorToMinute(askedStart);
  if (start > end) return undefined;
  return { start: Math.min(end, Math.max(start, floorToMinute(oldest))), end };
}
