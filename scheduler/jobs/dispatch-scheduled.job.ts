import type { Job } from '../job.js';

/** Every 5 seconds: scheduled emails that are due are handed to the MTA (queued), each once. */
export const dispatchScheduledJob: Job = {
  name: 'dispatch-scheduled',
  description: 'hand scheduled emails that are due to the MTA (every 5 s)',
  cron: '*/5 * * * * *',
  timeoutMs: 60_000,
  run: async (services) => ({ dispatched: (await services.emails.dispatchDue()).length }),
};
