import type { AggregateRow } from './metric.repository.js';
import {
  RATE_DEFINITIONS,
  zeroCounts,
  type Counts,
  type Dimension,
  type Granularity,
  type MetricName,
  type MetricsRow,
} from './metric.types.js';
import { nextPeriod, periodStart } from './zoned-time.js';

/**
 * A metric's value from counts. Rates are fractions between 0 and 1: 0 when the denominator is
 * 0, and at most 1 (a range can hold more deliveries than sends, or more opens than
 * deliveries, when they belong to messages sent before it or opened several times).
 */
export function metricValue(metric: MetricName, counts: Counts): number {
  if (!(metric in RATE_DEFINITIONS)) return counts[metric as keyof Counts];
  const [numerator, denominator] = RATE_DEFINITIONS[metric as keyof typeof RATE_DEFINITIONS];
  return counts[denominator] === 0 ? 0 : Math.min(1, counts[numerator] / counts[denominator]);
}

export function pickMetrics(metrics: MetricName[], counts: Counts): Partial<Record<MetricName, number>> {
  return Object.fromEntries(metrics.map((metric) => [metric, metricValue(metric, counts)]));
}

export function sumCounts(target: Counts, source: Counts): Counts {
  for (const key of Object.keys(source) as Array<keyof Counts>) target[key] += source[key];
  return target;
}

export type Breakdown = {
  dimensions: Dimension[];
  granularity: Granularity;
  timezone: string;
  start: number;
  end: number;
};

type Group = { period?: number; domainId?: string; emailId?: string; broadcastId?: string; counts: Counts };

const keyOf = (group: Group) => [group.period, group.domainId, group.emailId, group.broadcastId].join('|');

/**
 * Folds per-minute sums into one group per combination of the requested dimensions. Periods
 * are those of the time zone; a period cut by the range is labelled with its own start.
 * With `period` as the only dimension every period of the range appears, empty ones as zeros.
 */
export function groupRows(rows: AggregateRow[], breakdown: Breakdown): Group[] {
  const { dimensions, granularity, timezone } = breakdown;
  const periods = new Map<number, number>();
  const periodOf = (minute: Date) => {
    let found = periods.get(minute.getTime());
    if (found === undefined)
      periods.set(minute.getTime(), (found = periodStart(minute.getTime(), granularity, timezone)));
    return found;
  };
  const groups = new Map<string, Group>();
  if (dimensions.length === 1 && dimensions[0] === 'period') {
    for (
      let p = periodStart(breakdown.start, granularity, timezone);
      p < breakdown.end;
      p = nextPeriod(p, granularity, timezone)
    ) {
      const empty: Group = { period: p, counts: zeroCounts() };
      groups.set(keyOf(empty), empty);
    }
  }
  for (const row of rows) {
    const group: Group = { counts: zeroCounts() };
    if (dimensions.includes('period')) group.period = periodOf(row.minute!);
    if (dimensions.includes('domain')) group.domainId = row.domain_id ?? '';
    if (dimensions.includes('email')) group.emailId = row.email_id ?? '';
    if (dimensions.includes('broadcast')) group.broadcastId = row.broadcast_id ?? '';
    const key = keyOf(group);
    const existing = groups.get(key) ?? groups.set(key, group).get(key)!;
    sumCounts(existing.counts, row.counts);
  }
  return [...groups.values()];
}

/** Rows in a stable order: by period, then domain name, email and broadcast. */
export function toRows(
  groups: Group[],
  metrics: MetricName[],
  names: { domains: Map<string, string>; broadcasts: Map<string, string | null> },
): MetricsRow[] {
  const rows = groups.map((group) => {
    const row: MetricsRow = { values: pickMetrics(metrics, group.counts) };
    if (group.period !== undefined) row.period = new Date(group.period);
    if (group.domainId !== undefined) {
      row.domainId = group.domainId || null;
      row.domainName = names.domains.get(group.domainId) ?? null;
    }
    if (group.emailId !== undefined) row.emailId = group.emailId || null;
    if (group.broadcastId !== undefined) {
      row.broadcastId = group.broadcastId || null;
      row.broadcastName = names.broadcasts.get(group.broadcastId) ?? null;
    }
    return row;
  });
  const text = (value: string | null | undefined) => value ?? '';
  return rows.sort(
    (a, b) =>
      (a.period?.getTime() ?? 0) - (b.period?.getTime() ?? 0) ||
      text(a.domainName ?? a.domainId).localeCompare(text(b.domainName ?? b.domainId)) ||
      text(a.emailId).localeCompare(text(b.emailId)) ||
      text(a.broadcastId).localeCompare(text(b.broadcastId)),
  );
}
