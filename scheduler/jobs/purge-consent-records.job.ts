import type { Job } from '../job.js';

/** Consent records past the three years they are kept (spec), erased contacts' included. */
export const purgeConsentRecordsJob: Job = {
  name: 'purge-consent-records',
  description: 'delete consent records older than three years (daily)',
  cron: '17 3 * * *',
  timeoutMs: 15 * 60_000,
  run: async (services) => services.consent.purgeExpired(),
};
