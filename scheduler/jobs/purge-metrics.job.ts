import type { Job } from '../job.js';

/** Metric buckets and first-seen rows are kept for the team plan's retention window, then deleted. */
export const purgeMetricsJob: Job = {
  name: 'purge-metrics',
  description: "delete metric buckets past the plan's retention (hourly)",
  cron: '41 * * * *',
  timeoutMs: 10 * 60_000,
  run: (services) => services.metrics.purgeExpired(),
};
