import type { Automation, AutomationVersion } from './automation.types.js';

/** A list item (the SDK's Automation): no graph, no `object`. */
export function publicAutomationItem(a: Automation) {
  return {
    id: a.id,
    name: a.name,
    status: a.status,
    created_at: a.createdAt.toISOString(),
    updated_at: a.updatedAt ? a.updatedAt.toISOString() : null,
  };
}

/** Retrieve: the automation with its active version's steps and connections. */
export function publicAutomation(a: Automation, version: AutomationVersion) {
  return {
    object: 'automation' as const,
    ...publicAutomationItem(a),
    steps: version.steps.map((s) => ({ key: s.key, type: s.type, config: s.config })),
    connections: version.connections.map((c) => ({ from: c.from, to: c.to, type: c.type })),
  };
}
