import type { Knex } from 'knex';
import { deleteInBatches } from '../../../db/dialect.js';
import { PLANS, type Plan } from '../plans/plan.catalog.js';

/**
 * Deletes rows of a per-team table older than each team's plan retention window, and rows of
 * teams that no longer exist, in batches. Tables need `id`, `team_id` and `created_at`.
 * `ownerless`: team ids that are no team by design (kept; their owner purges them).
 * `retentionDays`: which of the plan's windows applies (the audit log keeps its own).
 */
export async function purgeByPlanRetention(
  knex: Knex,
  table: string,
  now: Date,
  batch = 1000,
  ownerless: string[] = [],
  retentionDays: (plan: Plan) => number = (plan) => plan.limits.retention_days,
): Promise<number> {
  let total = 0;
  for (const plan of PLANS) {
    const before = new Date(now.getTime() - retentionDays(plan) * 86_400_000);
    total += await deleteInBatches(
      knex,
      table,
      () =>
        knex(table)
          .select(`${table}.id`)
          .join('teams', 'teams.id', `${table}.team_id`)
          .where('teams.plan_code', plan.code)
          .where(`${table}.created_at`, '<', before),
      batch,
    );
  }
  total += await deleteInBatches(
    knex,
    table,
    () =>
      knex(table)
        .select(`${table}.id`)
        .leftJoin('teams', 'teams.id', `${table}.team_id`)
        .whereNull('teams.id')
        .whereNotIn(`${table}.team_id`, ownerless),
    batch,
  );
  return total;
}
