import type { Job } from '../job.js';

/**
 * The outbound queue's retention: attempts (SMTP transcripts) after mta.transcriptRetentionDays,
 * settled deliveries after the team plan's window, egress rests that ran out.
 */
export const purgeDeliveriesJob: Job = {
  name: 'purge-deliveries',
  description:
    "delete SMTP transcripts, settled deliveries past the plan's retention, and expired egress rests (hourly)",
  cron: '52 * * * *',
  timeoutMs: 15 * 60_000,
  run: async (services) => services.deliveryRetention.purgeExpired(),
};
