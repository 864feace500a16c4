import type { Job } from '../job.js';

/** Share links that expired or were revoked (see EmailShareService.purgeExpired): their rows are dead weight. */
export const purgeEmailShareLinksJob: Job = {
  name: 'purge-email-share-links',
  description: 'delete expired and revoked email share links (hourly)',
  cron: '41 * * * *',
  timeoutMs: 5 * 60_000,
  run: async (services) => ({ deleted: await services.emailShares.purgeExpired() }),
};
