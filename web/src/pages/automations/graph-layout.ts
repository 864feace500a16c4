import type { Graph } from './automation-types';

export type Point = { x: number; y: number };

export const NODE_WIDTH = 230;
const COLUMN = 280;
const ROW = 150;

/**
 * Where each step is drawn: top to bottom in layers by the longest path from the trigger (a
 * step sits below every step leading to it), side by side within a layer. Steps the trigger
 * does not reach go in a last row, so a half-built graph is still all visible.
 */
export function layoutGraph(graph: Graph): Map<string, Point> {
  const trigger = graph.steps.find((s) => s.type === 'trigger')?.key;
  const depth = new Map<string, number>();
  if (trigger) {
    depth.set(trigger, 0);
    // Relax edges as many times as there are steps: longest paths in a DAG; a cycle just stops.
    for (let round = 0; round < graph.steps.length; round++) {
      let changed = false;
      for (const c of graph.connections) {
        const from = depth.get(c.from);
        if (from === undefined || c.to === trigger) continue;
        if ((depth.get(c.to) ?? -1) < from + 1 && from + 1 <= graph.steps.length) {
          depth.set(c.to, from + 1);
          changed = true;
        }
      }
      if (!changed) break;
    }
  }
  const maxDepth = Math.max(0, ...depth.values());
  const layers = new Map<number, string[]>();
  for (const step of graph.steps) {
    const d = depth.get(step.key) ?? maxDepth + 1;
    layers.set(d, [...(layers.get(d) ?? []), step.key]);
  }
  const widest = Math.max(1, ...[...layers.values()].map((l) => l.length));
  const positions = new Map<string, Point>();
  for (const [d, keys] of layers) {
    const offset = ((widest - keys.length) * COLUMN) / 2;
    keys.forEach((key, i) => positions.set(key, { x: offset + i * COLUMN, y: d * ROW }));
  }
  return positions;
}
