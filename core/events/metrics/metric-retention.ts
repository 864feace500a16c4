import type { Knex } from 'knex';
import { deleteInBatches } from '../../../db/dialect.js';
import { PLANS } from '../../platform/plans/plan.catalog.js';

/**
 * Buckets older than each team's plan retention window (by the minute they count, not when
 * they were written), and buckets of teams that no longer exist, in batches.
 */
export async function purgeBucketsByPlanRetention(knex: Knex, now: Date, batch = 1000): Promise<number> {
  let total = 0;
  for (const plan of PLANS) {
    const before = new Date(now.getTime() - plan.limits.retention_days * 86_400_000);
    total += await deleteInBatches(
      knex,
      'metric_buckets',
      () =>
        knex('metric_buckets')
          .select('metric_buckets.id')
          .join('teams', 'teams.id', 'metric_buckets.team_id')
          .where('teams.plan_code', plan.code)
          .where('metric_buckets.minute', '<', before),
      batch,
    );
  }
  total += await deleteInBatches(
    knex,
    'metric_buckets',
    () =>
      knex('metric_buckets')
        .select('metric_buckets.id')
        .leftJoin('teams', 'teams.id', 'metric_buckets.team_id')
        .whereNull('teams.id'),
    batch,
  );
  return total;
}
