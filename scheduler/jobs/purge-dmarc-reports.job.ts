import type { Job } from '../job.js';

/** DMARC aggregate reports past config.dmarcReports.retentionDays, and those of deleted domains. */
export const purgeDmarcReportsJob: Job = {
  name: 'purge-dmarc-reports',
  description: 'delete DMARC aggregate reports past their retention and those of deleted domains (hourly)',
  cron: '47 * * * *',
  timeoutMs: 10 * 60_000,
  run: async (services) => services.dmarcReports.purgeExpired(),
};
