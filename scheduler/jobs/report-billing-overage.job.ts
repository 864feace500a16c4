import type { Job } from '../job.js';

/**
 * Overage of paid plans to the payment provider's meter (OverageMeterService): pending reports
 * sent again first, then each subscribed team's new overage of the hour, once. Does nothing
 * without a provider or a meter (billing.stripe.meterEventName).
 */
export const reportBillingOverageJob: Job = {
  name: 'report-billing-overage',
  description: "report paid plans' overage emails to the payment provider's meter, retrying pending reports (hourly)",
  cron: '29 * * * *',
  timeoutMs: 10 * 60_000,
  run: async (services) => ({ ...(await services.overageMeter.run()) }),
};
