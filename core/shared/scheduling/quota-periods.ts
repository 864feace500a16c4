/**
 * The quota periods, in UTC: the daily quota resets at 00:00 UTC and the monthly quotas
 * (transactional on the free plan, marketing on every plan) on the first of the month. The quotas
 * (email-acceptance.ts, marketing-allowance.ts) and GET /billing all read them here, so billing
 * reports exactly what the quotas count.
 */
export function utcDayStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export function utcMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** The last day of the month (00:00 UTC of that day). */
export function utcMonthLastDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 0));
}

/** YYYY-MM-DD of a UTC date. */
export const isoDate = (date: Date): string => date.toISOString().slice(0, 10);
