import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';

/**
 * What the Metrics page asks GET /emails/metrics for, and the answer's shape. The filters live in
 * the URL (range, granularity, tz, domain) so a view can be shared; this file turns them into the
 * API's query (start_date, granularity, timezone, domain_id, dimensions=period).
 */
export const RANGES = [
  { value: '24h', label: 'Last 24 hours', granularities: ['hourly'] },
  { value: '7d', label: 'Last 7 days', granularities: ['daily', 'hourly'] },
  { value: '30d', label: 'Last 30 days', granularities: ['daily', 'weekly'] },
  { value: '90d', label: 'Last 90 days', granularities: ['weekly', 'daily', 'monthly'] },
  { value: '12m', label: 'Last 12 months', granularities: ['monthly', 'weekly'] },
] as const;

export type RangeValue = (typeof RANGES)[number]['value'];
export type Granularity = 'hourly' | 'daily' | 'weekly' | 'monthly';

export const GRANULARITY_LABELS: Record<Granularity, string> = {
  hourly: 'By hour',
  daily: 'By day',
  weekly: 'By week',
  monthly: 'By month',
};

/** The counts and rates the charts draw (the API answers only what is asked). */
export const CHART_METRICS = [
  'sent',
  'delivered',
  'bounced',
  'bounced_transient',
  'bounced_permanent',
  'bounced_undetermined',
  'complained',
  'opened',
  'clicked',
  'delivery_rate',
  'open_rate',
  'click_rate',
  'bounce_rate',
  'complaint_rate',
  'attempted',
] as const;

export type MetricName = (typeof CHART_METRICS)[number];
export type MetricValues = Record<MetricName, number>;
export type MetricRow = MetricValues & { period: string };

export type MetricsAnswer = {
  object: 'metrics';
  start_date: string;
  end_date: string;
  granularity: Granularity;
  totals: MetricValues;
  data_as_of: string | null;
  data?: MetricRow[];
};

export type MetricsFilters = { range: RangeValue; granularity: Granularity; timeZone: string; domainId: string };

/** The browser's own time zone: the default, so "today" is the person's today. */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

export function rangeOf(value: string): (typeof RANGES)[number] {
  return RANGES.find((range) => range.value === value) ?? RANGES[1];
}

/** A granularity the range offers (an hourly 12-month chart would be thousands of points). */
export function granularityFor(range: (typeof RANGES)[number], asked: string): Granularity {
  const offered: readonly string[] = range.granularities;
  return (offered.includes(asked) ? asked : range.granularities[0]) as Granularity;
}

/** Today's calendar date in a time zone, as YYYY-MM-DD. */
function todayIn(timeZone: string, now: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

function minusDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d - days)).toISOString().slice(0, 10);
}

function minusMonths(date: string, months: number): string {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1 - months, 1)).toISOString().slice(0, 10);
}

/**
 * The start of the range. Day-based ranges start at midnight in the chosen time zone (a calendar
 * date, which the API reads in `timezone`), so the first day is whole; the 24-hour range is an
 * instant. The end is left out: the API takes now, down to the last completed minute.
 */
export function startDateFor(range: RangeValue, timeZone: string, now = new Date()): string {
  const today = todayIn(timeZone, now);
  switch (range) {
    case '24h':
      return new Date(now.getTime() - 24 * 3_600_000).toISOString();
    case '7d':
      return minusDays(today, 6);
    case '30d':
      return minusDays(today, 29);
    case '90d':
      return minusDays(today, 89);
    case '12m':
      return minusMonths(today, 11);
  }
}

export function useMetrics(filters: MetricsFilters) {
  const query = {
    start_date: startDateFor(filters.range, filters.timeZone),
    dimensions: 'period',
    granularity: filters.granularity,
    timezone: filters.timeZone,
    domain_id: filters.domainId || undefined,
    metrics: CHART_METRICS.join(','),
  };
  return useQuery({
    // The start moves with the clock; the key holds the filters so a refetch keeps the same view.
    queryKey: ['emails', 'metrics', filters],
    queryFn: ({ signal }) => api.get<MetricsAnswer>('/emails/metrics', { query, signal }),
    placeholderData: keepPreviousData,
  });
}
