import type { PropertyDef, TopicDef } from './segment-types';

/**
 * The builder's editable tree and its translation to the spec's filter grammar: groups `all`,
 * `any`, `not` holding conditions `{ field, op, value }` or `{ topic, subscription }`, nested at
 * most three deep, at most twenty conditions. Values are edited as text and converted when the
 * filter is built, so a half-typed condition is reported here rather than sent.
 */
export type GroupKind = 'all' | 'any' | 'not';
export type FieldNode = { kind: 'field'; id: string; field: string; op: string; value: string };
export type TopicNode = { kind: 'topic'; id: string; topic: string; subscription: 'opt_in' | 'opt_out' };
export type GroupNode = { kind: 'group'; id: string; mode: GroupKind; members: FilterNode[] };
export type FilterNode = FieldNode | TopicNode | GroupNode;

export const MAX_DEPTH = 3;
export const MAX_CONDITIONS = 20;
export const TOPIC_FIELD = 'topic';

export type ValueType = 'email' | 'text' | 'boolean' | 'date' | 'number';
const OPERATORS: Record<ValueType, string[]> = {
  email: ['eq', 'neq', 'contains', 'in'],
  text: ['eq', 'neq', 'contains', 'exists', 'in'],
  boolean: ['eq'],
  date: ['gt', 'gte', 'lt', 'lte'],
  number: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
};
export const OPERATOR_LABELS: Record<string, string> = {
  eq: 'is',
  neq: 'is not',
  contains: 'contains',
  in: 'is one of',
  exists: 'has a value',
  gt: 'is greater than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
};
const DATE_LABELS: Record<string, string> = {
  gt: 'is after',
  gte: 'is on or after',
  lt: 'is before',
  lte: 'is on or before',
};

/** An operator in words for its field's type (dates read as before/after). */
export const operatorLabel = (op: string, type: ValueType) =>
  (type === 'date' ? DATE_LABELS[op] : undefined) ?? OPERATOR_LABELS[op] ?? op;

/** The fields a condition can test: the built-in ones, then the team's declared properties. */
export function fieldOptions(properties: PropertyDef[], topics: TopicDef[]) {
  return [
    { value: 'email', label: 'Email' },
    { value: 'first_name', label: 'First name' },
    { value: 'last_name', label: 'Last name' },
    { value: 'unsubscribed', label: 'Unsubscribed' },
    { value: 'created_at', label: 'Created' },
    ...properties.map((p) => ({ value: `properties.${p.key}`, label: `Property: ${p.key}` })),
    ...(topics.length ? [{ value: TOPIC_FIELD, label: 'Topic subscription' }] : []),
  ];
}

export function valueType(field: string, properties: PropertyDef[]): ValueType {
  if (field === 'email') return 'email';
  if (field === 'unsubscribed') return 'boolean';
  if (field === 'created_at') return 'date';
  if (field.startsWith('properties.')) {
    const key = field.slice('properties.'.length).toLowerCase();
    return properties.find((p) => p.key.toLowerCase() === key)?.type === 'number' ? 'number' : 'text';
  }
  return 'text';
}

export const operatorsFor = (type: ValueType) => OPERATORS[type];

/** A value control's kind: booleans (unsubscribed, exists) are a yes/no choice. */
export const isYesNo = (type: ValueType, op: string) => op === 'exists' || type === 'boolean';

let counter = 0;
export const newId = () => `n${++counter}`;

export const newCondition = (): FieldNode => ({
  kind: 'field',
  id: newId(),
  field: 'email',
  op: 'contains',
  value: '',
});
export const newGroup = (mode: GroupKind = 'all'): GroupNode => ({
  kind: 'group',
  id: newId(),
  mode,
  members: [newCondition()],
});

export function countConditions(node: FilterNode): number {
  return node.kind === 'group' ? node.members.reduce((n, m) => n + countConditions(m), 0) : 1;
}

/** The same tree with the node `id` replaced by `replace(node)` (or removed when it returns null). */
export function updateNode(root: GroupNode, id: string, replace: (node: FilterNode) => FilterNode | null): GroupNode {
  const walk = (node: FilterNode): FilterNode | null => {
    if (node.id === id) return replace(node);
    if (node.kind !== 'group') return node;
    return { ...node, members: node.members.map(walk).filter((m): m is FilterNode => m !== null) };
  };
  return walk(root) as GroupNode;
}

/** A field condition moved to another field: the operator and value reset where they no longer fit. */
export function withField(node: FieldNode | TopicNode, field: string, properties: PropertyDef[], topics: TopicDef[]) {
  if (field === TOPIC_FIELD)
    return { kind: 'topic', id: node.id, topic: topics[0]?.id ?? '', subscription: 'opt_in' } satisfies TopicNode;
  const ops = operatorsFor(valueType(field, properties));
  const op = node.kind === 'field' && ops.includes(node.op) ? node.op : ops[0]!;
  const kept = node.kind === 'field' && valueType(node.field, properties) === valueType(field, properties);
  return { kind: 'field', id: node.id, field, op, value: kept ? node.value : '' } satisfies FieldNode;
}

export type BuildResult = { filter: Record<string, unknown> } | { problem: string };

/** The spec's filter for the tree, or the first condition still to complete (in words). */
export function buildFilter(root: GroupNode, properties: PropertyDef[]): BuildResult {
  if (countConditions(root) > MAX_CONDITIONS) return { problem: `At most ${MAX_CONDITIONS} conditions.` };
  let problem: string | null = null;
  const walk = (node: FilterNode, label: string): unknown => {
    if (node.kind === 'group') {
      if (node.members.length === 0) problem ??= `${label} is empty: add a condition or remove it.`;
      return { [node.mode]: node.members.map((m, i) => walk(m, memberLabel(label, m, i))) };
    }
    if (node.kind === 'topic') {
      if (!node.topic) problem ??= `${label}: choose a topic.`;
      return { topic: node.topic, subscription: node.subscription };
    }
    const converted = convertValue(node, valueType(node.field, properties));
    if (typeof converted === 'object' && converted !== null && 'problem' in converted) {
      problem ??= `${label}: ${converted.problem}`;
      return null;
    }
    return { field: node.field, op: node.op, value: converted };
  };
  const filter = walk(root, 'The filter') as Record<string, unknown>;
  return problem ? { problem } : { filter };
}

/** "Condition 2", "Group 3", "Condition 3.1": how the builder names a member (also its legend). */
export function memberLabel(parentLabel: string, node: FilterNode, index: number): string {
  const prefix = parentLabel.startsWith('Group ') ? `${parentLabel.slice('Group '.length)}.` : '';
  return `${node.kind === 'group' ? 'Group' : 'Condition'} ${prefix}${index + 1}`;
}

type Converted = string | number | boolean | string[] | number[] | { problem: string };

function convertValue(node: FieldNode, type: ValueType): Converted {
  const text = node.value.trim();
  if (isYesNo(type, node.op))
    return text === 'true' ? true : text === 'false' ? false : { problem: 'choose yes or no.' };
  if (node.op === 'in') {
    const items = text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (items.length === 0) return { problem: 'enter one or more values, separated by commas.' };
    if (type !== 'number') return items;
    const numbers = items.map(Number);
    return numbers.every(Number.isFinite) ? numbers : { problem: 'every value must be a number.' };
  }
  if (!text) return { problem: 'enter a value.' };
  if (type === 'number') {
    const n = Number(text);
    return Number.isFinite(n) ? n : { problem: `"${text}" is not a number.` };
  }
  if (type === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(text)) return { problem: 'enter a date (YYYY-MM-DD).' };
  return text;
}

/** The builder's tree for a filter the API returned (to start a new segment from an existing one). */
export function fromFilter(filter: Record<string, unknown>): GroupNode {
  const walk = (node: Record<string, unknown>): FilterNode => {
    for (const mode of ['all', 'any', 'not'] as const)
      if (Array.isArray(node[mode]))
        return {
          kind: 'group',
          id: newId(),
          mode,
          members: (node[mode] as Record<string, unknown>[]).map(walk),
        };
    if (typeof node.topic === 'string')
      return {
        kind: 'topic',
        id: newId(),
        topic: node.topic,
        subscription: node.subscription === 'opt_out' ? 'opt_out' : 'opt_in',
      };
    const value = node.value;
    return {
      kind: 'field',
      id: newId(),
      field: String(node.field),
      op: String(node.op),
      value: Array.isArray(value) ? value.join(', ') : String(value),
    };
  };
  const root = walk(filter);
  return root.kind === 'group' ? root : { kind: 'group', id: newId(), mode: 'all', members: [root] };
}
