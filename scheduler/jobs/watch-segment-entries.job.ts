import type { Job } from '../job.js';

/**
 * Every 30 seconds: contacts who entered a segment an enabled automation's
 * svc:segment.entered trigger watches become occurrences (the next advance-automations tick
 * enrols them). Segments are filters evaluated when asked, so entering is found by comparison.
 */
export const watchSegmentEntriesJob: Job = {
  name: 'watch-segment-entries',
  description: "find contacts who entered a segment an automation's trigger watches (every 30 s)",
  cron: '*/30 * * * * *',
  timeoutMs: 300_000,
  run: async (services) => services.segmentEntries.check(),
};
