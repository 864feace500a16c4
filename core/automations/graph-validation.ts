import type { FieldError } from '../../lib/errors.js';
import type { SegmentFilterContext } from '../audience/segments/segment-filter.js';
import { MAX_PROPERTY_STRING } from '../audience/properties/contact-property.types.js';
import { parseScheduledAt } from '../shared/scheduling/schedule-phrase.js';
import { isEventName } from '../custom-events/event-name.js';
import { checkCondition, conditionPropertyKeys } from './condition-rules.js';
import {
  CONNECTION_TYPES,
  MAX_DELAY_MS,
  MAX_STEP_KEY_LENGTH,
  MAX_STEPS,
  PLATFORM_TRIGGERS,
  REFUSED_CONNECTION_TYPES,
  REFUSED_STEP_TYPES,
  STEP_TYPES,
  type AutomationConnection,
  type AutomationStep,
  type ConnectionType,
  type StepType,
} from './automation.types.js';

/**
 * Whole-graph validation of an automation version, pure (no I/O): the caller passes the team's
 * declared properties and live topics, and receives, besides the problems, the references to
 * check against the team (custom events, templates, segments: see team-references.ts).
 *
 * Every problem is filed under the step it concerns (`steps.<key>`), or, for a connection that
 * names no step or a refused type, under the connection (`connections.<index>`), or, for what
 * concerns the whole graph (too many steps, no trigger), under `steps`. Problems of one path are
 * joined into one entry: the answer has one errors[] entry per offending step key.
 *
 * Rules: at most 150 steps; keys of 1..100 characters, unique; types from the available set
 * (wait_for_event and contact_delete refused); exactly one trigger; connection types default,
 * condition_met, condition_not_met (timeout and event_received refused), naming existing keys;
 * a step other than a condition has at most one outgoing connection, of type default; a
 * condition has only condition_met / condition_not_met connections, at most one of each; every
 * step other than the trigger reachable from it; no cycle; each step's config as its type wants.
 */
export type StepInput = { key: string; type: string; config: Record<string, unknown> };
export type ConnectionInput = { from: string; to: string; type?: string | undefined };
export type GraphInput = { steps: StepInput[]; connections: ConnectionInput[] };

/** A name the graph uses that must exist in the team (checked by team-references.ts). */
export type GraphReference =
  | { step: string; kind: 'custom_event'; name: string }
  | { step: string; kind: 'template'; id: string }
  | { step: string; kind: 'segment'; id: string };

export type GraphContext = SegmentFilterContext & { now: Date };

export type GraphCheck = {
  problems: GraphProblems;
  references: GraphReference[];
  /** The graph as it would be published (connection types filled in); meaningful only without problems. */
  steps: AutomationStep[];
  connections: AutomationConnection[];
};

/** Problems keyed by path, in the order first met; each path is one errors[] entry. */
export class GraphProblems {
  private readonly byPath = new Map<string, string[]>();

  add(path: string, message: string): void {
    const list = this.byPath.get(path);
    if (list) {
      if (!list.includes(message)) list.push(message);
    } else this.byPath.set(path, [message]);
  }

  get size(): number {
    return this.byPath.size;
  }

  toErrors(): FieldError[] {
    return [...this.byPath].map(([path, messages]) => ({ path, message: messages.join('; ') }));
  }
}

const stepPath = (key: string) => `steps.${key}`;
const quote = (value: unknown) => JSON.stringify(typeof value === 'string' ? value.slice(0, 120) : value);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const STEP_TYPE_SET = new Set<string>(STEP_TYPES);
const REFUSED_STEP_SET = new Set<string>(REFUSED_STEP_TYPES);
const CONNECTION_TYPE_SET = new Set<string>(CONNECTION_TYPES);
const REFUSED_CONNECTION_SET = new Set<string>(REFUSED_CONNECTION_TYPES);
const PLATFORM_TRIGGER_SET = new Set(PLATFORM_TRIGGERS);

export function checkGraph(input: GraphInput, ctx: GraphContext): GraphCheck {
  const problems = new GraphProblems();
  const references: GraphReference[] = [];
  const empty = { problems, references, steps: [], connections: [] };
  if (input.steps.length > MAX_STEPS) {
    // Nothing else is read: the graph is refused whole.
    problems.add('steps', `a graph has at most ${MAX_STEPS} steps (${input.steps.length} given)`);
    return empty;
  }

  // Keys and types.
  const steps = new Map<string, StepInput>();
  const counts = new Map<string, number>();
  input.steps.forEach((step, index) => {
    if (step.key.length === 0 || step.key.length > MAX_STEP_KEY_LENGTH) {
      problems.add(`steps.${index}`, `key must be 1 to ${MAX_STEP_KEY_LENGTH} characters`);
      return;
    }
    counts.set(step.key, (counts.get(step.key) ?? 0) + 1);
    if (!steps.has(step.key)) steps.set(step.key, step);
  });
  for (const [key, count] of counts)
    if (count > 1) problems.add(stepPath(key), `the key is used by ${count} steps; keys must be unique`);
  for (const [key, step] of steps) {
    if (REFUSED_STEP_SET.has(step.type)) problems.add(stepPath(key), `step type ${step.type} is not available`);
    else if (!STEP_TYPE_SET.has(step.type))
      problems.add(stepPath(key), `unknown step type ${quote(step.type)} (types: ${STEP_TYPES.join(', ')})`);
  }

  // Exactly one trigger: the first one is the root, any other is refused.
  const triggers = [...steps.values()].filter((s) => s.type === 'trigger').map((s) => s.key);
  const root = triggers[0];
  if (root === undefined) problems.add('steps', 'a graph needs exactly one trigger step (none given)');
  for (const extra of triggers.slice(1))
    problems.add(stepPath(extra), `a graph has exactly one trigger; ${quote(root)} is already the trigger`);

  // Connections: known types, known keys.
  const edges: AutomationConnection[] = [];
  input.connections.forEach((connection, index) => {
    const path = `connections.${index}`;
    const type = connection.type ?? 'default';
    const bad: string[] = [];
    if (REFUSED_CONNECTION_SET.has(type)) bad.push(`connection type ${type} is not available`);
    else if (!CONNECTION_TYPE_SET.has(type))
      bad.push(`unknown connection type ${quote(type)} (types: ${CONNECTION_TYPES.join(', ')})`);
    if (!steps.has(connection.from)) bad.push(`from: no step has the key ${quote(connection.from)}`);
    if (!steps.has(connection.to)) bad.push(`to: no step has the key ${quote(connection.to)}`);
    if (bad.length > 0) return bad.forEach((message) => problems.add(path, message));
    edges.push({ from: connection.from, to: connection.to, type: type as ConnectionType });
  });

  // Outgoing edges per step.
  const outgoing = new Map<string, AutomationConnection[]>();
  for (const edge of edges) outgoing.set(edge.from, [...(outgoing.get(edge.from) ?? []), edge]);
  for (const [key, out] of outgoing) {
    const step = steps.get(key)!;
    if (step.type === 'condition') {
      if (out.some((e) => e.type === 'default'))
        problems.add(stepPath(key), 'a condition connects only by condition_met and condition_not_met, not default');
      for (const branch of ['condition_met', 'condition_not_met'] as const) {
        const n = out.filter((e) => e.type === branch).length;
        if (n > 1) problems.add(stepPath(key), `a condition has at most one ${branch} connection (${n} given)`);
      }
    } else {
      if (out.some((e) => e.type !== 'default'))
        problems.add(stepPath(key), 'only a condition has condition_met and condition_not_met connections');
      if (out.length > 1)
        problems.add(stepPath(key), `a ${step.type} step has at most one outgoing connection (${out.length} given)`);
    }
  }

  // Reachable from the trigger.
  if (root !== undefined) {
    const reached = new Set([root]);
    const queue = [root];
    while (queue.length > 0)
      for (const edge of outgoing.get(queue.shift()!) ?? [])
        if (!reached.has(edge.to)) {
          reached.add(edge.to);
          queue.push(edge.to);
        }
    for (const [key, step] of steps)
      if (!reached.has(key) && step.type !== 'trigger')
        problems.add(stepPath(key), `not reachable from the trigger ${quote(root)}`);
  }

  // Acyclic: a depth-first walk from every step; an edge back into the walk's path closes a cycle.
  const state = new Map<string, 'open' | 'done'>();
  const visit = (key: string): void => {
    state.set(key, 'open');
    for (const edge of outgoing.get(key) ?? []) {
      const seen = state.get(edge.to);
      if (seen === 'open') problems.add(stepPath(key), `the connection to ${quote(edge.to)} closes a cycle`);
      else if (seen === undefined) visit(edge.to);
    }
    state.set(key, 'done');
  };
  for (const key of steps.keys()) if (!state.has(key)) visit(key);

  // Configs.
  for (const [key, step] of steps) {
    if (!STEP_TYPE_SET.has(step.type)) continue;
    for (const problem of configProblems(step as StepInput & { type: StepType }, ctx, references))
      problems.add(stepPath(key), problem);
  }

  return {
    problems,
    references,
    steps: input.steps.map((s) => ({ key: s.key, type: s.type as StepType, config: s.config })),
    connections: edges,
  };
}

// ---------------------------------------------------------------------------------------------
// Step configs

function unknownKeys(config: Record<string, unknown>, allowed: string[]): string[] {
  const extra = Object.keys(config).filter((k) => !allowed.includes(k));
  return extra.length > 0 ? [`unknown config key${extra.length > 1 ? 's' : ''} ${extra.join(', ')}`] : [];
}

function configProblems(
  step: StepInput & { type: StepType },
  ctx: GraphContext,
  references: GraphReference[],
): string[] {
  const c = step.config;
  switch (step.type) {
    case 'trigger':
      return triggerProblems(step.key, c, ctx, references);
    case 'send_email':
      return [
        ...unknownKeys(c, ['template', 'subject', 'from', 'reply_to', 'topic_id']),
        ...sendEmailProblems(step.key, c, ctx, references),
      ];
    case 'delay':
      return [...unknownKeys(c, ['duration', 'until']), ...delayProblems(c, ctx.now)];
    case 'condition': {
      const result = checkCondition(c, ctx);
      return result.ok ? [] : result.problems;
    }
    case 'contact_update':
      return [
        ...unknownKeys(c, ['first_name', 'last_name', 'unsubscribed', 'properties']),
        ...contactUpdateProblems(c, ctx),
      ];
    case 'add_to_segment':
      if (typeof c.segment_id !== 'string' || c.segment_id.length === 0)
        return [...unknownKeys(c, ['segment_id']), 'segment_id must be the id of a segment'];
      references.push({ step: step.key, kind: 'segment', id: c.segment_id });
      return unknownKeys(c, ['segment_id']);
    case 'topic_update':
      return [...unknownKeys(c, ['topic_id', 'subscription']), ...topicUpdateProblems(c, ctx)];
  }
}

/**
 * A trigger names a custom event of the team or a platform event. svc:segment.entered names its
 * segment (`segment_id`, required: "entered" means nothing without one); svc:topic.subscribed
 * may name one topic (`topic_id`; without it, an opt-in to any topic fires).
 */
function triggerProblems(
  key: string,
  c: Record<string, unknown>,
  ctx: GraphContext,
  references: GraphReference[],
): string[] {
  const name = c.event_name;
  if (typeof name !== 'string' || name.length === 0)
    return [
      ...unknownKeys(c, ['event_name']),
      'event_name must name a custom event of the team or a platform event (svc:...)',
    ];
  if (name === 'svc:segment.entered') {
    if (typeof c.segment_id !== 'string' || c.segment_id.length === 0)
      return [...unknownKeys(c, ['event_name', 'segment_id']), 'segment_id must name the segment to watch'];
    references.push({ step: key, kind: 'segment', id: c.segment_id });
    return unknownKeys(c, ['event_name', 'segment_id']);
  }
  if (name === 'svc:topic.subscribed') {
    const problems = unknownKeys(c, ['event_name', 'topic_id']);
    if (c.topic_id !== undefined && !knownTopic(c.topic_id, ctx))
      problems.push(`topic_id: no topic ${quote(String(c.topic_id).slice(0, 120))}`);
    return problems;
  }
  const problems = unknownKeys(c, ['event_name']);
  if (name.startsWith('svc:'))
    return PLATFORM_TRIGGER_SET.has(name)
      ? problems
      : [...problems, `unknown platform event ${quote(name)} (platform events: ${PLATFORM_TRIGGERS.join(', ')})`];
  if (!isEventName(name)) return [...problems, `no custom event is named ${quote(name)}`];
  references.push({ step: key, kind: 'custom_event', name });
  return problems;
}

function sendEmailProblems(
  key: string,
  c: Record<string, unknown>,
  ctx: GraphContext,
  references: GraphReference[],
): string[] {
  const problems: string[] = [];
  const template = c.template;
  if (!isObject(template) || typeof template.id !== 'string' || template.id.length === 0)
    problems.push('template must be { id, variables } naming a published template');
  else {
    const extra = Object.keys(template).filter((k) => k !== 'id' && k !== 'variables');
    if (extra.length > 0) problems.push(`unknown template key ${extra.join(', ')}`);
    if (template.variables !== undefined && template.variables !== null && !isObject(template.variables))
      problems.push('template.variables must be an object');
    references.push({ step: key, kind: 'template', id: template.id });
  }
  for (const field of ['subject', 'from'] as const)
    if (c[field] !== undefined && c[field] !== null && (typeof c[field] !== 'string' || c[field] === ''))
      problems.push(`${field} must be a non-empty string`);
  const replyTo = c.reply_to;
  if (
    replyTo !== undefined &&
    replyTo !== null &&
    typeof replyTo !== 'string' &&
    !(Array.isArray(replyTo) && replyTo.every((r) => typeof r === 'string'))
  )
    problems.push('reply_to must be an address or a list of addresses');
  if (c.topic_id !== undefined && c.topic_id !== null && !knownTopic(c.topic_id, ctx))
    problems.push(`topic_id: no topic ${quote(c.topic_id)}`);
  return problems;
}

const RELATIVE = /^(?:in )?(\d+|an?) (minute|hour|day|week)s?$/;

/**
 * A delay: `duration`, a phrase such as "30 minutes", "2 hours", "3 days", "1 week" (also
 * written "in 3 days"), or `until`, an ISO 8601 instant (read as UTC without a zone); exactly
 * one of the two, more than zero and at most 30 days out.
 */
function delayProblems(c: Record<string, unknown>, now: Date): string[] {
  const hasDuration = c.duration !== undefined;
  const hasUntil = c.until !== undefined;
  if (hasDuration === hasUntil) return ['give exactly one of duration and until'];
  let at: Date | undefined;
  if (hasDuration) {
    const phrase = typeof c.duration === 'string' ? c.duration.trim().toLowerCase().replace(/\s+/g, ' ') : '';
    const match = RELATIVE.exec(phrase);
    if (!match) return ['duration must be a phrase such as "30 minutes", "2 hours" or "3 days"'];
    at = parseScheduledAt(phrase.startsWith('in ') ? phrase : `in ${phrase}`, now);
  } else {
    if (typeof c.until !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(c.until.trim()))
      return ['until must be an ISO 8601 instant such as 2026-01-31T10:00:00Z'];
    at = parseScheduledAt(c.until, now);
    if (!at) return ['until must be an ISO 8601 instant such as 2026-01-31T10:00:00Z'];
  }
  const ahead = at!.getTime() - now.getTime();
  if (!(ahead > 0)) return [hasDuration ? 'duration must be more than zero' : 'until must be in the future'];
  if (ahead > MAX_DELAY_MS) return [`a delay is at most 30 days out`];
  return [];
}

function contactUpdateProblems(c: Record<string, unknown>, ctx: GraphContext): string[] {
  const problems: string[] = [];
  const fields = ['first_name', 'last_name', 'unsubscribed', 'properties'].filter((f) => c[f] !== undefined);
  if (fields.length === 0) problems.push('set at least one of first_name, last_name, unsubscribed, properties');
  for (const name of ['first_name', 'last_name'] as const) {
    const value = c[name];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || value.length > 200)
      problems.push(`${name} must be a literal string of at most 200 characters, or null`);
  }
  if (c.unsubscribed !== undefined && typeof c.unsubscribed !== 'boolean')
    problems.push('unsubscribed must be true or false');
  if (c.properties !== undefined) {
    if (!isObject(c.properties)) problems.push('properties must be an object of declared property keys');
    else
      for (const [key, value] of Object.entries(c.properties)) {
        const property = ctx.properties.get(key.toLowerCase());
        if (!property) problems.push(`properties.${key}: undeclared property`);
        else if (value === null) continue;
        else if (property.type === 'number' ? typeof value !== 'number' || !Number.isFinite(value) : false)
          problems.push(`properties.${key}: must be a number (or null)`);
        else if (property.type === 'string' && (typeof value !== 'string' || value.length > MAX_PROPERTY_STRING))
          problems.push(`properties.${key}: must be a string of at most ${MAX_PROPERTY_STRING} characters (or null)`);
      }
  }
  return problems;
}

/** topic_update (shape ours: the spec shows none): `{ topic_id, subscription: 'opt_in' | 'opt_out' }`. */
function topicUpdateProblems(c: Record<string, unknown>, ctx: GraphContext): string[] {
  const problems: string[] = [];
  if (typeof c.topic_id !== 'string' || c.topic_id.length === 0) problems.push('topic_id must be the id of a topic');
  else if (!knownTopic(c.topic_id, ctx)) problems.push(`topic_id: no topic ${quote(c.topic_id)}`);
  if (c.subscription !== 'opt_in' && c.subscription !== 'opt_out')
    problems.push('subscription must be "opt_in" or "opt_out"');
  return problems;
}

const knownTopic = (id: unknown, ctx: GraphContext) => typeof id === 'string' && ctx.topics.has(id.toLowerCase());

/** The property keys a graph names (condition fields and contact_update properties), lower-cased. */
export function propertyKeysOfGraph(steps: AutomationStep[]): string[] {
  const keys = new Set<string>();
  for (const step of steps) {
    if (step.type === 'condition') for (const key of conditionPropertyKeys(step.config)) keys.add(key.toLowerCase());
    if (step.type === 'contact_update' && isObject(step.config.properties))
      for (const key of Object.keys(step.config.properties)) keys.add(key.toLowerCase());
  }
  return [...keys];
}
