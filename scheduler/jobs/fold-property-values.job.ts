import type { Job } from '../job.js';

/**
 * String property values written by a previous release (during an upgrade, or after a rollback)
 * lack the fold segment filters compare; this folds them within a minute.
 */
export const foldPropertyValuesJob: Job = {
  name: 'fold-property-values',
  description: 'fold string contact property values written without their folded form (every minute)',
  cron: '* * * * *',
  timeoutMs: 60_000,
  run: async (services) => ({ ...(await services.foldMissedPropertyValues()) }),
};
