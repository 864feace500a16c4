import { findPlan, type PlanLimits } from '../../core/platform/plans/plan.catalog.js';

/**
 * Changes a plan's allowances in this process for one test (the plans are data read at each
 * check) and puts them back at teardown: quotas can then be reached in a handful of sends.
 */
export function lowerPlanLimits(
  t: { teardown(fn: () => void): void },
  planCode: string,
  changes: Partial<PlanLimits>,
): void {
  const limits = findPlan(planCode)!.limits as PlanLimits;
  const saved = { ...limits };
  Object.assign(limits, changes);
  t.teardown(() => void Object.assign(limits, saved));
}
