import { UnprocessableValidationError } from '../../../../lib/errors.js';

const MINUTE_MS = 60_000;
const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: MINUTE_MS,
  h: 60 * MINUTE_MS,
  d: 24 * 60 * MINUTE_MS,
};
const UNIT_NAMES: Record<string, string> = {
  s: 's',
  sec: 's',
  secs: 's',
  second: 's',
  seconds: 's',
  m: 'm',
  min: 'm',
  mins: 'm',
  minute: 'm',
  minutes: 'm',
  h: 'h',
  hr: 'h',
  hrs: 'h',
  hour: 'h',
  hours: 'h',
  d: 'd',
  day: 'd',
  days: 'd',
};

/** The SDK's ShareEmailOptions: "Defaults to `48h` and cannot exceed 48 hours". */
export const SHARE_DEFAULT_MS = 48 * 60 * MINUTE_MS;
export const SHARE_MAX_MS = 48 * 60 * MINUTE_MS;
/** Shorter than a minute is not a link anyone could open in time. */
export const SHARE_MIN_MS = MINUTE_MS;

/**
 * `expires_in` as the `resend` SDK sends it: a duration such as `10m`, `2 hours`, `1 day` or
 * `48h` (a number, then a unit; a space between is allowed). Absent means 48 hours. Anything
 * unreadable, under a minute or over 48 hours is 422 validation_error naming the field.
 */
export function shareLifetimeMs(expiresIn: string | undefined): number {
  if (expiresIn === undefined) return SHARE_DEFAULT_MS;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i.exec(expiresIn);
  const unit = match ? UNIT_NAMES[match[2]!.toLowerCase()] : undefined;
  if (!match || !unit) throw invalid('must be a duration such as 10m, 2 hours or 1 day');
  const ms = Math.round(Number(match[1]) * UNIT_MS[unit]!);
  if (ms < SHARE_MIN_MS || ms > SHARE_MAX_MS) throw invalid('must be between 1 minute and 48 hours');
  return ms;
}

const invalid = (message: string) =>
  new UnprocessableValidationError(`expires_in ${message}`, { errors: [{ path: 'expires_in', message }] });
