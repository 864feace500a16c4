import type { Job } from '../job.js';

/**
 * RFC 8460 reports of the previous UTC day's outbound TLS sessions, to each destination that
 * publishes a TLSRPT record. Run in the small hours so every mta process has flushed the day's
 * counts (they flush every tlsReports.flushSeconds); a rerun sends nothing twice.
 */
export const sendTlsReportsJob: Job = {
  name: 'send-tls-reports',
  description: "send the previous UTC day's SMTP TLS reports (RFC 8460) to destinations that ask for them (daily)",
  cron: '27 2 * * *',
  timeoutMs: 30 * 60_000,
  run: async (services) => ({ ...(await services.tlsReports.reports.sendDaily()) }),
};
