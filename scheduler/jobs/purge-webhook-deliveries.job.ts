import type { Job } from '../job.js';

/** Webhook deliveries and their attempts are kept for the team plan's retention window. */
export const purgeWebhookDeliveriesJob: Job = {
  name: 'purge-webhook-deliveries',
  description: "delete webhook deliveries and their attempts past the plan's retention (hourly)",
  cron: '47 * * * *',
  timeoutMs: 15 * 60_000,
  run: async (services) => services.webhookDeliveries.purgeExpired(),
};
