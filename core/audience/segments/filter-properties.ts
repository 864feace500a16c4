import type { SegmentFilter } from './segment-filter.js';

/** The property keys a (valid) filter reads, as written in its `properties.<key>` fields. */
export function propertyKeysOf(filter: SegmentFilter): string[] {
  const keys: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    const field = (node as { field?: unknown }).field;
    if (typeof field === 'string' && field.startsWith('properties.')) keys.push(field.slice('properties.'.length));
    for (const value of Object.values(node)) if (typeof value === 'object') walk(value);
  };
  walk(filter);
  return keys;
}
