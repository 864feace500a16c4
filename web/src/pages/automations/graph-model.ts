import type { Connection, ConnectionType, Graph, Step, StepType } from './automation-types';

/**
 * Edits of a graph as pure functions (the editor keeps the graph in state): every rule of a
 * valid graph is the API's (graph-validation.ts on save), so nothing here refuses an edit; it
 * only keeps one outgoing connection per step and branch, as the API wants.
 */

/** A new key for a step of `type`: `delay_1`, `delay_2`, ... (keys name steps in errors and runs). */
export function newKey(graph: Graph, type: string): string {
  const taken = new Set(graph.steps.map((s) => s.key));
  for (let n = 1; ; n++) if (!taken.has(`${type}_${n}`)) return `${type}_${n}`;
}

export function addStep(graph: Graph, type: StepType, after?: string): { graph: Graph; key: string } {
  const key = type === 'trigger' && !graph.steps.some((s) => s.key === 'trigger') ? 'trigger' : newKey(graph, type);
  let next: Graph = { ...graph, steps: [...graph.steps, { key, type, config: {} }] };
  // Added after the selected step when it has no next step yet: the usual way a flow grows.
  const from = after ? graph.steps.find((s) => s.key === after) : undefined;
  if (from && type !== 'trigger') {
    const branch = from.type === 'condition' ? freeBranch(graph, from.key) : freeDefault(graph, from.key);
    if (branch) next = connect(next, from.key, key, branch);
  }
  return { graph: next, key };
}

const freeDefault = (graph: Graph, key: string): ConnectionType | undefined =>
  graph.connections.some((c) => c.from === key) ? undefined : 'default';

const freeBranch = (graph: Graph, key: string): ConnectionType | undefined =>
  (['condition_met', 'condition_not_met'] as const).find(
    (type) => !graph.connections.some((c) => c.from === key && c.type === type),
  );

export function removeStep(graph: Graph, key: string): Graph {
  return {
    steps: graph.steps.filter((s) => s.key !== key),
    connections: graph.connections.filter((c) => c.from !== key && c.to !== key),
  };
}

/** Connects `from` to `to` on `type`, replacing what `from` had on that branch; `to` '' disconnects. */
export function connect(graph: Graph, from: string, to: string, type: ConnectionType): Graph {
  const kept = graph.connections.filter((c) => !(c.from === from && (c.type ?? 'default') === type));
  return { ...graph, connections: to ? [...kept, { from, to, type }] : kept };
}

export function setConfig(graph: Graph, key: string, config: Record<string, unknown>): Graph {
  return { ...graph, steps: graph.steps.map((s) => (s.key === key ? { ...s, config } : s)) };
}

/** The branch types a step has: a condition met / not met, any other step one next step. */
export function branchesOf(step: Step): ConnectionType[] {
  if (step.type === 'condition') return ['condition_met', 'condition_not_met'];
  return ['default'];
}

export const targetOf = (graph: Graph, from: string, type: ConnectionType): string =>
  graph.connections.find((c) => c.from === from && (c.type ?? 'default') === type)?.to ?? '';

/** The graph as the API takes it (connection types always given). */
export const toBody = (graph: Graph): Graph => ({
  steps: graph.steps.map(({ key, type, config }) => ({ key, type, config })),
  connections: graph.connections.map((c: Connection) => ({ from: c.from, to: c.to, type: c.type ?? 'default' })),
});

/** A new automation starts with its trigger alone. */
export const STARTING_GRAPH: Graph = {
  steps: [{ key: 'trigger', type: 'trigger', config: {} }],
  connections: [],
};
