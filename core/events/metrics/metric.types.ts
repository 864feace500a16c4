/**
 * The metrics of GET /emails/metrics (spec: "GET /emails/metrics"), in the spec's order. Counts
 * are stored per one-minute bucket; rates are computed from counts when a report is read.
 */
export const COUNT_METRICS = [
  'received',
  'delivered',
  'complained',
  'suppressed',
  'bounced',
  'bounced_transient',
  'bounced_permanent',
  'bounced_undetermined',
  'opened',
  'clicked',
  'delivery_delayed',
  'failed',
  'sent',
  'unique_opened',
  'unique_clicked',
  'attempted',
] as const;

export const RATE_METRICS = ['delivery_rate', 'open_rate', 'click_rate', 'bounce_rate', 'complaint_rate'] as const;

export type CountMetric = (typeof COUNT_METRICS)[number];
export type RateMetric = (typeof RATE_METRICS)[number];
export type MetricName = CountMetric | RateMetric;

/**
 * Every metric, in the order the spec lists them (the counts, the rates, then `attempted`):
 * the default of `metrics`. Derived, so a metric is declared in one place.
 */
export const METRICS: readonly MetricName[] = [
  ...COUNT_METRICS.filter((metric) => metric !== 'attempted'),
  ...RATE_METRICS,
  'attempted',
];

/** numerator / denominator of each rate (spec: delivery_rate is delivered/sent, ...). */
export const RATE_DEFINITIONS: Record<RateMetric, [CountMetric, CountMetric]> = {
  delivery_rate: ['delivered', 'sent'],
  open_rate: ['opened', 'delivered'],
  click_rate: ['clicked', 'delivered'],
  bounce_rate: ['bounced', 'sent'],
  complaint_rate: ['complained', 'sent'],
};

export const DIMENSIONS = ['period', 'domain', 'email', 'broadcast'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export const GRANULARITIES = ['hourly', 'daily', 'weekly', 'monthly'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export type Counts = Record<CountMetric, number>;

export function zeroCounts(): Counts {
  return Object.fromEntries(COUNT_METRICS.map((metric) => [metric, 0])) as Counts;
}

/**
 * A date parameter as given: a calendar date, a wall-clock time in the requested time zone
 * (no offset given), or an instant (with Z or an offset). The first two need the time zone.
 */
export type DateInput =
  | { kind: 'date'; year: number; month: number; day: number }
  | {
      kind: 'local';
      year: number;
      month: number;
      day: number;
      hour: number;
      minute: number;
      second: number;
      millisecond: number;
    }
  | { kind: 'instant'; at: Date };

export type MetricsQuery = {
  startDate?: DateInput;
  endDate?: DateInput;
  metrics: MetricName[];
  dimensions: Dimension[];
  granularity: Granularity;
  domainIds: string[];
  emailIds: string[];
  broadcastIds: string[];
  timezone: string;
};

/** One row of `data`: the dimension values it stands for, and its metrics. */
export type MetricsRow = {
  period?: Date;
  domainId?: string | null;
  domainName?: string | null;
  emailId?: string | null;
  broadcastId?: string | null;
  broadcastName?: string | null;
  values: Partial<Record<MetricName, number>>;
};

export type MetricsReport = {
  start: Date;
  end: Date;
  metrics: MetricName[];
  dimensions: Dimension[];
  granularity: Granularity;
  totals: Partial<Record<MetricName, number>>;
  /** End of the last one-minute bucket the roll-up has completed; null before its first run. */
  dataAsOf: Date | null;
  /** Absent when no dimension was asked for. */
  data?: MetricsRow[];
};
