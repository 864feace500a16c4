import { parseScheduledAt } from '../../shared/scheduling/schedule-phrase.js';
import type { AutomationStep, AutomationVersion } from '../automation.types.js';

/** The step to follow from `key`: the default edge, or for a condition the branch taken. */
export function successor(
  version: Pick<AutomationVersion, 'connections'>,
  key: string,
  type: 'default' | 'condition_met' | 'condition_not_met' = 'default',
): string | null {
  return version.connections.find((c) => c.from === key && c.type === type)?.to ?? null;
}

/** The steps of a version in walk order from the trigger: depth first, condition_met before condition_not_met. */
export function stepsInGraphOrder(version: Pick<AutomationVersion, 'steps' | 'connections'>): AutomationStep[] {
  const byKey = new Map(version.steps.map((s) => [s.key, s]));
  const order: AutomationStep[] = [];
  const seen = new Set<string>();
  const rank = { default: 0, condition_met: 1, condition_not_met: 2 } as const;
  const visit = (key: string) => {
    const step = byKey.get(key);
    if (!step || seen.has(key)) return;
    seen.add(key);
    order.push(step);
    const out = version.connections.filter((c) => c.from === key).sort((a, b) => rank[a.type] - rank[b.type]);
    for (const edge of out) visit(edge.to);
  };
  const trigger = version.steps.find((s) => s.type === 'trigger');
  if (trigger) visit(trigger.key);
  return order;
}

/** When a delay step ends, from the moment the run reached it (as graph-validation reads the config). */
export function delayUntil(config: Record<string, unknown>, from: Date): Date | undefined {
  if (typeof config.until === 'string') return parseScheduledAt(config.until, from);
  if (typeof config.duration !== 'string') return undefined;
  const phrase = config.duration.trim().toLowerCase().replace(/\s+/g, ' ');
  return parseScheduledAt(phrase.startsWith('in ') ? phrase : `in ${phrase}`, from);
}
