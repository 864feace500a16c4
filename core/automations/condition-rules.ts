import {
  validateSegmentFilter,
  type SegmentFilter,
  type SegmentFilterContext,
} from '../audience/segments/segment-filter.js';

/**
 * A condition step's config is the SDK's rule tree over the contact:
 * `{ type: 'rule', field, operator, value }` or `{ type: 'and' | 'or', rules: [...] }` (and
 * `{ type: 'not', rules }`, the complement of `or`). It is read as a segment filter over the one
 * contact (`and` = all, `or` = any, a rule = a condition), so fields, operators, values, depth (3)
 * and size (20 rules) follow the segment filter grammar exactly, and the engine evaluates a
 * condition with the segment filter compiler. Fields: email, first_name, last_name,
 * unsubscribed, created_at, properties.<key>. Operators: eq, neq, contains, in, gt, gte, lt,
 * lte as for segments; `exists` (no value, or a boolean as in segments) and `is_empty` (=
 * exists false). `starts_with` and `ends_with` are refused: segment filters have no such test.
 */
export type ConditionCheck = { ok: true; filter: SegmentFilter } | { ok: false; problems: string[] };

const GROUPS: Record<string, 'all' | 'any' | 'not'> = { and: 'all', or: 'any', not: 'not' };
const UNSUPPORTED = new Set(['starts_with', 'ends_with']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

type Walk = { problems: string[]; nodes: number };

/** Deeper than this the segment grammar refuses anyway; stop before recursing further. */
const MAX_WALK_DEPTH = 5;

function translate(node: unknown, path: string, depth: number, walk: Walk): unknown {
  walk.nodes++;
  if (!isObject(node)) return void walk.problems.push(`${path}: must be an object with a type`);
  const type = node.type;
  if (type === 'rule') {
    const unknown = Object.keys(node).filter((k) => !['type', 'field', 'operator', 'value'].includes(k));
    if (unknown.length > 0) return void walk.problems.push(`${path}: unknown key ${unknown.join(', ')} in a rule`);
    const { field, operator } = node;
    if (typeof operator === 'string' && UNSUPPORTED.has(operator))
      return void walk.problems.push(`${path}: operator "${operator}" is not available`);
    if (operator === 'exists' || operator === 'is_empty') {
      const value = node.value === undefined ? true : node.value;
      return { field, op: 'exists', value: operator === 'is_empty' && typeof value === 'boolean' ? !value : value };
    }
    return { field, op: operator, value: node.value };
  }
  if (typeof type === 'string' && Object.hasOwn(GROUPS, type)) {
    const unknown = Object.keys(node).filter((k) => !['type', 'rules'].includes(k));
    if (unknown.length > 0) return void walk.problems.push(`${path}: unknown key ${unknown.join(', ')} in a group`);
    if (depth >= MAX_WALK_DEPTH) return void walk.problems.push(`${path}: nesting deeper than 3 levels`);
    if (!Array.isArray(node.rules) || node.rules.length === 0)
      return void walk.problems.push(`${path}: "${type}" needs a non-empty rules array`);
    return { [GROUPS[type]!]: node.rules.map((rule, i) => translate(rule, `${path}.rules[${i}]`, depth + 1, walk)) };
  }
  return void walk.problems.push(`${path}: type must be "rule", "and", "or" or "not"`);
}

/** Reads a condition config against the team's properties and topics; every problem listed. */
export function checkCondition(config: Record<string, unknown>, ctx: SegmentFilterContext): ConditionCheck {
  const walk: Walk = { problems: [], nodes: 0 };
  const translated = translate(config, 'config', 1, walk);
  if (walk.problems.length > 0) return { ok: false, problems: walk.problems };
  const wrapped = config.type === 'rule';
  const result = validateSegmentFilter(wrapped ? { all: [translated] } : translated, ctx);
  if (result.ok) return { ok: true, filter: result.filter };
  return {
    ok: false,
    problems: result.errors.map((e) => {
      const path = (wrapped ? e.path.replace(/^filter\.all\[0\]/, 'config') : e.path.replace(/^filter/, 'config'))
        .replace(/\.(all|any|not)\[/g, '.rules[')
        .replace(/^filter$/, 'config');
      return `${path}: ${e.message.replace(/\bconditions\b/g, 'rules')}`;
    }),
  };
}

/** The property keys a condition config names (`properties.<key>` fields), as written. */
export function conditionPropertyKeys(config: unknown): string[] {
  const keys: string[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (!isObject(node) || depth > MAX_WALK_DEPTH) return;
    if (typeof node.field === 'string' && node.field.startsWith('properties.'))
      keys.push(node.field.slice('properties.'.length));
    if (Array.isArray(node.rules)) for (const rule of node.rules) walk(rule, depth + 1);
  };
  walk(config, 1);
  return keys;
}
