import type { MetricsReport, MetricsRow } from '../../core/events/metrics/metric.types.js';

/** A row of `data`: its dimension values first (as the SDK names them), then its metrics. */
function serializeRow(row: MetricsRow) {
  return {
    ...(row.period !== undefined ? { period: row.period.toISOString() } : {}),
    ...(row.domainId !== undefined ? { domain_id: row.domainId, domain_name: row.domainName ?? null } : {}),
    ...(row.emailId !== undefined ? { email_id: row.emailId } : {}),
    ...(row.broadcastId !== undefined
      ? { broadcast_id: row.broadcastId, broadcast_name: row.broadcastName ?? null }
      : {}),
    ...row.values,
  };
}

/** Spec: Metrics response; `data` is left out entirely when no dimension was asked for. */
export function serializeMetrics(report: MetricsReport) {
  return {
    object: 'metrics' as const,
    start_date: report.start.toISOString(),
    end_date: report.end.toISOString(),
    metrics: report.metrics,
    dimensions: report.dimensions,
    granularity: report.granularity,
    totals: report.totals,
    data_as_of: report.dataAsOf ? report.dataAsOf.toISOString() : null,
    ...(report.data ? { data: report.data.map(serializeRow) } : {}),
  };
}
