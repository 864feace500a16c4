import type { Job } from '../job.js';

/**
 * Every minute (10 s past, once the settle time of the minute before has passed): events are
 * rolled up into one-minute metric buckets and `data_as_of` moves to the last completed minute.
 */
export const rollupMetricsJob: Job = {
  name: 'rollup-metrics',
  description: 'roll events up into one-minute metric buckets (every minute)',
  cron: '10 * * * * *',
  timeoutMs: 5 * 60_000,
  run: async (services) => {
    const { events, buckets, batches } = await services.metrics.rollUp();
    return { events, buckets, batches };
  },
};
