import type { Job } from '../job.js';

/**
 * The usage ledger's records of months older than the current one and the twelve before it.
 * Nothing reads them later: GET /usage and GET /billing ask for this month, the overage meter
 * for the current billing period.
 */
export const purgeUsageRecordsJob: Job = {
  name: 'purge-usage-records',
  description: 'delete usage ledger records of months older than a year (daily)',
  cron: '41 3 * * *',
  timeoutMs: 10 * 60_000,
  run: async (services) => ({ deleted: await services.usage.purgeOld() }),
};
