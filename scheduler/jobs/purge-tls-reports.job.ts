import type { Job } from '../job.js';

/** TLS session counts and the record of sent TLS reports are kept tlsReports.retentionDays. */
export const purgeTlsReportsJob: Job = {
  name: 'purge-tls-reports',
  description: 'delete TLS session counts and sent TLS report records past tlsReports.retentionDays (daily)',
  cron: '51 3 * * *',
  timeoutMs: 10 * 60_000,
  run: async (services) => ({ ...(await services.tlsReports.reports.purgeExpired()) }),
};
