import type { Job } from '../job.js';

/** Idempotency keys replay for 24 hours; afterwards the rows are only weight. */
export const purgeIdempotencyKeysJob: Job = {
  name: 'purge-idempotency-keys',
  description: 'delete idempotency keys older than 24 hours (every 15 minutes)',
  cron: '*/15 * * * *',
  timeoutMs: 5 * 60_000,
  run: async (services) => ({ deleted: await services.idempotency.purgeExpired() }),
};
