import type { Job } from '../job.js';

/**
 * Every 5 seconds: queued and due broadcasts become emails, page by page. A run stops after four
 * minutes (inside its lease); a broadcast left mid-way continues at the next run after its cursor.
 */
export const fanOutBroadcastsJob: Job = {
  name: 'fan-out-broadcasts',
  description: 'turn queued and due broadcasts into emails, page by page (every 5 s)',
  cron: '*/5 * * * * *',
  timeoutMs: 300_000,
  run: async (services) => services.broadcastFanOut.runDue(240_000),
};
