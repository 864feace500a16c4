import { ValidationError } from '../../../lib/errors.js';

/**
 * `scheduled_at`: an ISO 8601 instant, or a date, or a phrase, all read as UTC. A day without a
 * time means 09:00. Phrases: "in 10 minutes", "in 2 hours", "in 3 days", "in 1 week",
 * "today at 17:30", "tomorrow", "tomorrow at 8am", "next monday", "friday at 14:00".
 */
const UNITS: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 };
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DEFAULT_HOUR = 9;

function atTime(day: Date, time: string | undefined): Date | undefined {
  const result = new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), DEFAULT_HOUR));
  if (!time) return result;
  const match = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/.exec(time.trim());
  if (!match) return undefined;
  let hours = Number(match[1]);
  const minutes = Number(match[2] ?? 0);
  if (match[3]) {
    if (hours < 1 || hours > 12) return undefined;
    hours = (hours % 12) + (match[3] === 'pm' ? 12 : 0);
  }
  if (hours > 23 || minutes > 59) return undefined;
  result.setUTCHours(hours, minutes, 0, 0);
  return result;
}

export function parseScheduledAt(input: string, now: Date): Date | undefined {
  const value = input.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(value))
    return Number.isNaN(Date.parse(value)) ? undefined : atTime(new Date(`${value}T00:00:00Z`), undefined);
  if (/^\d{4}-\d{2}-\d{2}T/.test(value)) {
    // An ISO date-time without a zone is read as UTC.
    const withZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`;
    const parsed = Date.parse(withZone);
    return Number.isNaN(parsed) ? undefined : new Date(parsed);
  }
  const phrase = value.toLowerCase().replace(/\s+/g, ' ');
  const relative =
    /^in (\d+) (minute|hour|day|week)s?$/.exec(phrase) ?? /^in (an?) (minute|hour|day|week)$/.exec(phrase);
  if (relative) {
    const count = /^\d+$/.test(relative[1]!) ? Number(relative[1]) : 1;
    return new Date(now.getTime() + count * UNITS[relative[2]!]!);
  }
  const dayPhrase =
    /^(today|tomorrow|(?:next )?(sunday|monday|tuesday|wednesday|thursday|friday|saturday))(?: at (.+))?$/.exec(phrase);
  if (!dayPhrase) return undefined;
  const day = new Date(now);
  if (dayPhrase[1] === 'tomorrow') day.setUTCDate(day.getUTCDate() + 1);
  if (dayPhrase[2]) {
    // The next such weekday strictly after today.
    const ahead = (WEEKDAYS.indexOf(dayPhrase[2]) - now.getUTCDay() + 7) % 7 || 7;
    day.setUTCDate(day.getUTCDate() + ahead);
  }
  return atTime(day, dayPhrase[3]);
}

export const MIN_SCHEDULE_AHEAD_MS = 60_000;
export const MAX_SCHEDULE_AHEAD_MS = 30 * 86_400_000;

/**
 * `scheduled_at` as given to a send or a reschedule: an instant or phrase between one minute
 * and 30 days ahead, else 422 validation_error naming the field. Undefined stays undefined.
 */
export function scheduledAtWithinLimits(value: string | undefined, now: Date): Date | null {
  if (value === undefined) return null;
  const at = parseScheduledAt(value, now);
  const ahead = at ? at.getTime() - now.getTime() : NaN;
  if (!at || !(ahead >= MIN_SCHEDULE_AHEAD_MS && ahead <= MAX_SCHEDULE_AHEAD_MS)) {
    throw new ValidationError(
      'scheduled_at must be an ISO 8601 instant or a phrase such as "in 1 hour", between 1 minute and 30 days ahead',
      {
        errors: [
          {
            path: 'scheduled_at',
            message: at
              ? 'must be between 1 minute and 30 days ahead'
              : 'is not a date, time or phrase this service reads',
          },
        ],
      },
    );
  }
  return at;
}
