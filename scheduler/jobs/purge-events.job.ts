import type { Job } from '../job.js';

/** Events are kept for the team plan's retention window, then deleted. */
export const purgeEventsJob: Job = {
  name: 'purge-events',
  description: "delete events past the plan's retention (hourly)",
  cron: '37 * * * *',
  timeoutMs: 10 * 60_000,
  run: async (services) => ({ deleted: await services.eventLog.purgeExpired() }),
};
