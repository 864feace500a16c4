import type { Job } from '../job.js';

/**
 * Ids of applied billing webhook events after 30 days (the provider stopped redelivering long
 * before), and accepted overage reports 400 days after their period (kept for an audit).
 */
export const purgeBillingRecordsJob: Job = {
  name: 'purge-billing-records',
  description: 'delete applied billing webhook event ids after 30 days and old accepted overage reports (daily)',
  cron: '31 3 * * *',
  timeoutMs: 5 * 60_000,
  run: async (services) => ({
    webhookEvents: await services.billingWebhooks.purgeOld(),
    meterReports: await services.overageMeter.purgeOld(),
  }),
};
