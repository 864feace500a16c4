import type { Job } from '../job.js';

/** Ended shaping actions stay listed (GET /admin/deliverability/actions) this long, then go. */
export const DELIVERABILITY_ACTIONS_RETENTION_DAYS = 90;
const BATCH = 1000;

/** deliverability_actions grows with every slow and pause: ended ones are kept 90 days. */
export const purgeDeliverabilityActionsJob: Job = {
  name: 'purge-deliverability-actions',
  description: 'delete traffic shaping actions that ended more than 90 days ago (daily)',
  cron: '43 4 * * *',
  timeoutMs: 10 * 60_000,
  run: async (services) => {
    const { repository } = services.shaping.actions;
    const cutoff = new Date(
      services.operatorConsole.now().getTime() - DELIVERABILITY_ACTIONS_RETENTION_DAYS * 86_400_000,
    );
    let deleted = 0;
    // In batches, so a long backlog never holds one large delete.
    for (let removed = BATCH; removed === BATCH; deleted += removed)
      removed = await repository.purgeEndedBefore(cutoff, BATCH);
    return { deleted };
  },
};
