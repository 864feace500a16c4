import type { Job } from '../job.js';

/** Received mail past the plan's retention window (and of teams gone), then raw messages no row refers to. */
export const purgeReceivedEmailsJob: Job = {
  name: 'purge-received-emails',
  description: "delete received mail past the plan's retention and raw messages nothing refers to (hourly)",
  cron: '53 * * * *',
  timeoutMs: 15 * 60_000,
  run: async (services) => services.receivedEmails.purgeExpired(),
};
