import type { Job } from '../job.js';

/** Request logs are kept for the team plan's retention window, then deleted. */
export const purgeRequestLogsJob: Job = {
  name: 'purge-request-logs',
  description: "delete request logs past the plan's retention (hourly)",
  cron: '17 * * * *',
  timeoutMs: 10 * 60_000,
  run: async (services) => ({ deleted: await services.requestLogs.purgeExpired() }),
};
