import type { Job } from '../job.js';

/** Emails past the plan's retention window, their attachments, and spool segments left unreferenced. */
export const purgeEmailsJob: Job = {
  name: 'purge-emails',
  description: "delete emails past the plan's retention, their attachments, and unreferenced spool segments (hourly)",
  cron: '47 * * * *',
  timeoutMs: 15 * 60_000,
  run: async (services) => services.emails.purgeExpired(),
};
