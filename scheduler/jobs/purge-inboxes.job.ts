import type { Job } from '../job.js';

/** Inbox references to emails past their retention, emptied threads, and old deleted or sent drafts (see InboxRetention). */
export const purgeInboxesJob: Job = {
  name: 'purge-inboxes',
  description: 'delete inbox references to purged emails, emptied threads, old drafts and deleted inboxes (hourly)',
  cron: '47 * * * *',
  timeoutMs: 10 * 60_000,
  run: async (services) => services.inboxRetention.purge(),
};
