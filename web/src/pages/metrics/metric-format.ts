import type { Granularity } from './metrics-query';

const counts = new Intl.NumberFormat();

export const formatCount = (value: number) => counts.format(value);

/** A rate (a fraction, as the API gives it) in percent: 0.1 % needs its decimal, 45 % does not. */
export function formatPercent(fraction: number): string {
  const percent = fraction * 100;
  const digits = percent === 0 || percent >= 10 ? 0 : percent >= 1 ? 1 : 2;
  return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: digits }).format(percent)} %`;
}

/** A period's start as the axis and the table show it, in the report's time zone. */
export function periodLabel(iso: string, granularity: Granularity, timeZone: string, long = false): string {
  const date = new Date(iso);
  const options: Intl.DateTimeFormatOptions =
    granularity === 'hourly'
      ? long
        ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }
        : { hour: '2-digit', minute: '2-digit' }
      : granularity === 'monthly'
        ? { month: 'short', year: 'numeric' }
        : { month: 'short', day: 'numeric', ...(long ? { year: 'numeric' } : {}) };
  const text = new Intl.DateTimeFormat(undefined, { ...options, timeZone }).format(date);
  return granularity === 'weekly' && long ? `Week of ${text}` : text;
}
