import type { FieldError } from '../../lib/errors.js';
import type { EventSchema, SchemaType } from './custom-event.types.js';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** An instant with a time and a zone: 2026-01-31T09:30Z, 2026-01-31T09:30:00.123+02:00, ...+0200. */
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))$/;

const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function realDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!);
}

/**
 * A `date` value: an ISO 8601 calendar date (YYYY-MM-DD) naming a real day, or an instant with
 * a time and a zone (Z or an offset) whose date part names a real day and whose time and offset
 * are in range. 2026-02-29 and 2026-02-30T10:00:00Z are refused; 2028-02-29 is a day.
 */
export function isEventDate(value: string): boolean {
  const date = DATE.exec(value);
  if (date) return realDay(Number(date[1]), Number(date[2]), Number(date[3]));
  const instant = INSTANT.exec(value);
  if (!instant) return false;
  const [, year, month, day, hour, minute, second, offsetHours, offsetMinutes] = instant;
  return (
    realDay(Number(year), Number(month), Number(day)) &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second ?? 0) <= 59 &&
    Number(offsetHours ?? 0) <= 23 &&
    Number(offsetMinutes ?? 0) <= 59
  );
}

const MATCHES: Record<SchemaType, (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number' && Number.isFinite(value),
  boolean: (value) => typeof value === 'boolean',
  date: (value) => typeof value === 'string' && isEventDate(value),
};

const EXPECTED: Record<SchemaType, string> = {
  string: 'must be a string',
  number: 'must be a finite number',
  boolean: 'must be a boolean',
  date: 'must be an ISO 8601 date (YYYY-MM-DD) or an instant with a zone, naming an existing day',
};

/**
 * The payload against the definition's schema: a declared key that is present and not null must
 * match its type; absent or null passes; undeclared keys pass. One error per disagreeing key, in
 * the schema's order, with the path `payload.<key>`.
 */
export function payloadErrors(schema: EventSchema | null, payload: Record<string, unknown>): FieldError[] {
  if (!schema) return [];
  const errors: FieldError[] = [];
  for (const [key, type] of Object.entries(schema)) {
    if (!Object.hasOwn(payload, key)) continue;
    const value = payload[key];
    if (value === null || value === undefined) continue;
    if (!MATCHES[type](value)) errors.push({ path: `payload.${key}`, message: `${EXPECTED[type]} (declared ${type})` });
  }
  return errors;
}
