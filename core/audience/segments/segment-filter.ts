import type { Knex } from 'knex';
import { dialectOfKnex, likeContains } from '../../../db/dialect.js';
import { foldPropertyString } from '../contacts/property-value-row.js';
import { MAX_PROPERTY_STRING } from '../properties/contact-property.types.js';
import type { Subscription } from '../topics/topic.types.js';

/**
 * Segment filters: a small boolean grammar over a team's contacts. Validated by hand (not zod) so
 * each bad condition yields exactly one readable error and no JSON input can make it throw;
 * compiled into one SQL WHERE with knex, never evaluated in JavaScript.
 *
 * Value rules:
 * - eq, neq, contains on strings take a string of 1..500 characters (500 = the width of
 *   contact_property_values.string_value). Comparisons ignore case: LOWER() on both sides, and
 *   email compares the lower-cased email_normalized column with the lower-cased value.
 * - contains is a literal substring match (% _ and ! are ordinary characters).
 * - in takes 1..100 values of the field's type and matches a value equal to any of them.
 * - exists takes a boolean: true = the contact has a non-null value, false = it has none.
 * - unsubscribed eq takes a boolean; number operators take a finite number.
 * - created_at takes an ISO 8601 date (2026-01-31 = midnight UTC) or a date-time WITH a zone
 *   (2026-01-31T10:00:00Z, 2026-01-31T12:00:00+02:00); one without a zone is rejected because
 *   it would depend on the server's clock settings.
 * - neq on a value a contact may lack (first_name, last_name, properties) also matches contacts
 *   lacking it: an absent value is not equal to "x". Every other operator needs a value.
 * - Properties match stored values only: a property's fallback is a rendering default, not data.
 * - A topic condition matches the effective subscription: the contact's own contact_topics row,
 *   else the topic's default.
 * - Every condition compiles to a predicate that is TRUE or FALSE, never SQL NULL, so `not` is
 *   the exact complement of `any` even over NULL columns.
 *
 * The caller scopes the query to one team (contacts.team_id); the subqueries only follow the
 * contact's own rows and the team's property and topic ids.
 */

export type FilterProperty = { id: string; key: string; type: 'string' | 'number' };
export type FilterTopic = { id: string; defaultSubscription: Subscription };
export type SegmentFilterContext = {
  /** Keyed by the lower-cased property key. */
  properties: Map<string, FilterProperty>;
  /** Keyed by the lower-cased topic id. */
  topics: Map<string, FilterTopic>;
};

export type FilterOperator = 'eq' | 'neq' | 'contains' | 'in' | 'exists' | 'gt' | 'gte' | 'lt' | 'lte';
export type FieldCondition = {
  field: string;
  op: FilterOperator;
  value: string | number | boolean | string[] | number[];
};
export type TopicCondition = { topic: string; subscription: Subscription };
export type SegmentCondition = FieldCondition | TopicCondition;
export type SegmentFilter = { all: SegmentMember[] } | { any: SegmentMember[] } | { not: SegmentMember[] };
export type SegmentMember = SegmentCondition | SegmentFilter;

export type SegmentFilterError = { path: string; message: string };
export type SegmentFilterValidation = { ok: true; filter: SegmentFilter } | { ok: false; errors: SegmentFilterError[] };

export const MAX_FILTER_DEPTH = 3;
export const MAX_FILTER_CONDITIONS = 20;
export const MAX_IN_VALUES = 100;

const GROUP_KINDS = ['all', 'any', 'not'] as const;
type GroupKind = (typeof GROUP_KINDS)[number];
const PROPERTY_PREFIX = 'properties.';

/** What a field holds decides its operators and values; `text` is a nullable string. */
type FieldType = 'email' | 'text' | 'boolean' | 'date' | 'number';
const OPERATORS: Record<FieldType, readonly FilterOperator[]> = {
  email: ['eq', 'neq', 'contains', 'in'],
  text: ['eq', 'neq', 'contains', 'exists', 'in'],
  boolean: ['eq'],
  date: ['gt', 'gte', 'lt', 'lte'],
  number: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'exists'],
};
const COLUMN_FIELDS: Record<string, FieldType> = {
  email: 'email',
  first_name: 'text',
  last_name: 'text',
  unsubscribed: 'boolean',
  created_at: 'date',
};
const EXPECTED: Record<FieldType, string> = {
  email: `a string of 1 to ${MAX_PROPERTY_STRING} characters`,
  text: `a string of 1 to ${MAX_PROPERTY_STRING} characters`,
  boolean: 'true or false',
  date: 'an ISO 8601 date or date-time with a time zone (2026-01-31 or 2026-01-31T10:00:00Z)',
  number: 'a finite number',
};
const NOT_A_MEMBER =
  'expected a condition ({field, op, value} or {topic, subscription}) or a group ({"all" | "any" | "not": [...]})';
const SQL_OPERATORS = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

// ---------------------------------------------------------------------------------------------
// Validation

export function validateSegmentFilter(input: unknown, ctx: SegmentFilterContext): SegmentFilterValidation {
  const state: WalkState = { ctx, errors: [], conditions: 0 };
  let filter: SegmentFilter | undefined;
  if (isObject(input) && GROUP_KINDS.some((kind) => hasOwn(input, kind)))
    filter = checkGroup(input, 'filter', 1, state);
  else fail(state, 'filter', 'the filter must be a group: an object with one of "all", "any" or "not"');
  if (state.conditions > MAX_FILTER_CONDITIONS)
    fail(state, 'filter', `more than ${MAX_FILTER_CONDITIONS} conditions (found ${state.conditions})`);
  return state.errors.length === 0 && filter ? { ok: true, filter } : { ok: false, errors: state.errors };
}

type WalkState = { ctx: SegmentFilterContext; errors: SegmentFilterError[]; conditions: number };

function fail(state: WalkState, path: string, message: string): undefined {
  state.errors.push({ path, message });
  return undefined;
}

function checkGroup(
  node: Record<string, unknown>,
  path: string,
  depth: number,
  state: WalkState,
): SegmentFilter | undefined {
  // Stop here rather than descend: this also bounds recursion on absurdly nested input.
  if (depth > MAX_FILTER_DEPTH) return fail(state, path, `nesting deeper than ${MAX_FILTER_DEPTH} levels`);
  const kinds = GROUP_KINDS.filter((kind) => hasOwn(node, kind));
  if (kinds.length !== 1)
    return fail(state, path, `a group has exactly one of "all", "any" or "not" (found ${kinds.join(', ')})`);
  const kind = kinds[0] as GroupKind;
  const members = node[kind];
  if (!Array.isArray(members) || members.length === 0)
    return fail(state, path, `"${kind}" must be a non-empty array of conditions or groups`);
  const unknown = Object.keys(node).find((key) => key !== kind);
  // Members are still checked after an unknown key so one response lists every problem.
  if (unknown !== undefined) fail(state, path, `unknown key ${quote(unknown)} in a group`);
  const checked = members.map((member, i) => checkMember(member, `${path}.${kind}[${i}]`, depth, state));
  if (unknown !== undefined || checked.some((member) => member === undefined)) return undefined;
  return { [kind]: checked } as SegmentFilter;
}

function checkMember(member: unknown, path: string, depth: number, state: WalkState): SegmentMember | undefined {
  if (isObject(member) && GROUP_KINDS.some((kind) => hasOwn(member, kind)))
    return checkGroup(member, path, depth + 1, state);
  state.conditions++;
  const result = isObject(member) ? checkCondition(member, state.ctx) : NOT_A_MEMBER;
  return typeof result === 'string' ? fail(state, path, result) : result;
}

/** The condition, or the first thing wrong with it (one error per condition). */
function checkCondition(node: Record<string, unknown>, ctx: SegmentFilterContext): SegmentCondition | string {
  const isTopic = hasOwn(node, 'topic') || hasOwn(node, 'subscription');
  const isField = hasOwn(node, 'field') || hasOwn(node, 'op') || hasOwn(node, 'value');
  if (isTopic && isField) return 'a condition is either {field, op, value} or {topic, subscription}, not both';
  if (!isTopic && !isField) return NOT_A_MEMBER;
  const allowed = isTopic ? ['topic', 'subscription'] : ['field', 'op', 'value'];
  const unknown = Object.keys(node).find((key) => !allowed.includes(key));
  if (unknown !== undefined) return `unknown key ${quote(unknown)} in a condition`;
  return isTopic ? checkTopicCondition(node, ctx) : checkFieldCondition(node, ctx);
}

function checkTopicCondition(node: Record<string, unknown>, ctx: SegmentFilterContext): TopicCondition | string {
  const { topic, subscription } = node;
  if (typeof topic !== 'string') return 'topic must be a topic ID';
  if (!ctx.topics.has(topic.toLowerCase())) return `unknown topic ${quote(topic)}`;
  if (subscription !== 'opt_in' && subscription !== 'opt_out')
    return `subscription for topic ${quote(topic)} must be "opt_in" or "opt_out"`;
  return { topic, subscription };
}

function checkFieldCondition(node: Record<string, unknown>, ctx: SegmentFilterContext): FieldCondition | string {
  const { field, op, value } = node;
  if (typeof field !== 'string')
    return `field must be one of ${Object.keys(COLUMN_FIELDS).join(', ')} or ${PROPERTY_PREFIX}<key>`;
  const type = fieldType(field, ctx);
  if (type === undefined)
    return field.startsWith(PROPERTY_PREFIX)
      ? `undeclared property ${quote(field.slice(PROPERTY_PREFIX.length))}`
      : `unknown field ${quote(field)} (fields: ${Object.keys(COLUMN_FIELDS).join(', ')}, ${PROPERTY_PREFIX}<key>)`;
  const allowed = OPERATORS[type];
  if (!allowed.includes(op as FilterOperator))
    return `${op === undefined ? 'missing operator' : typeof op === 'string' ? `operator ${quote(op)} is not allowed` : 'op must be a string'} for ${field} (allowed: ${allowed.join(', ')})`;
  const operator = op as FilterOperator;
  if (!valueFits(type, operator, value))
    return `value for ${field} ${operator} must be ${expectedValue(type, operator)}`;
  return { field, op: operator, value: Array.isArray(value) ? [...(value as string[])] : (value as string) };
}

function fieldType(field: string, ctx: SegmentFilterContext): FieldType | undefined {
  if (hasOwn(COLUMN_FIELDS, field)) return COLUMN_FIELDS[field];
  if (!field.startsWith(PROPERTY_PREFIX)) return undefined;
  const property = ctx.properties.get(field.slice(PROPERTY_PREFIX.length).toLowerCase());
  return property && (property.type === 'number' ? 'number' : 'text');
}

function valueFits(type: FieldType, op: FilterOperator, value: unknown): boolean {
  if (op === 'exists') return typeof value === 'boolean';
  if (op === 'in')
    return (
      Array.isArray(value) &&
      value.length >= 1 &&
      value.length <= MAX_IN_VALUES &&
      value.every((item) => scalarFits(type, item))
    );
  return scalarFits(type, value);
}

function scalarFits(type: FieldType, value: unknown): boolean {
  switch (type) {
    case 'email':
    case 'text':
      return typeof value === 'string' && value.length >= 1 && value.length <= MAX_PROPERTY_STRING;
    case 'boolean':
      return typeof value === 'boolean';
    case 'date':
      return parseFilterDate(value) !== undefined;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
  }
}

function expectedValue(type: FieldType, op: FilterOperator): string {
  if (op === 'exists') return 'true or false';
  if (op === 'in') return `an array of 1 to ${MAX_IN_VALUES} values, each ${EXPECTED[type]}`;
  return EXPECTED[type];
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|([+-])(\d{2}):(\d{2})))?$/;

/** An ISO 8601 date (midnight UTC) or date-time with a zone, as an instant; undefined if invalid. */
export function parseFilterDate(value: unknown): Date | undefined {
  const match = typeof value === 'string' ? ISO_DATE.exec(value) : null;
  if (!match) return undefined;
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 10, 11].map((i) =>
    Number(match[i] ?? 0),
  ) as [number, number, number, number, number, number, number, number];
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0..99 as 1900..1999.
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined; // 2026-02-30
  const millis = Number(`${match[7] ?? ''}000`.slice(0, 3));
  date.setUTCHours(hour, minute, second, millis);
  const offset = (match[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  return new Date(date.getTime() - offset * 60_000);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** A user-supplied name in an error message: quoted, and cut short if someone sends a novel. */
function quote(text: string): string {
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
}

// ---------------------------------------------------------------------------------------------
// Compilation

/**
 * Adds the filter to `query` (over `contacts AS contactsAlias`) as one parenthesised WHERE group.
 * `filter` must have passed validateSegmentFilter with the same ctx: a property or topic the ctx
 * no longer knows is a programming error, thrown when knex builds the SQL (the query rejects).
 */
export function applySegmentFilter(
  query: Knex.QueryBuilder,
  filter: SegmentFilter,
  ctx: SegmentFilterContext,
  contactsAlias: string,
): void {
  const contactId = `${contactsAlias}.id`;
  // MariaDB runs correlated EXISTS once per contact, without a semi-join: uncorrelated IN there.
  const correlated = dialectOfKnex(query as unknown as Knex) === 'sqlite';

  function addGroup(builder: Knex.QueryBuilder, group: SegmentFilter): void {
    // Each member goes in its own parentheses, so its ANDs and ORs never leak into the group.
    if ('all' in group) for (const member of group.all) builder.where((b) => addMember(b, member));
    else if ('any' in group) for (const member of group.any) builder.orWhere((b) => addMember(b, member));
    else builder.whereNot((b) => group.not.forEach((member) => b.orWhere((m) => addMember(m, member))));
  }

  function addMember(builder: Knex.QueryBuilder, member: SegmentMember): void {
    if ('all' in member || 'any' in member || 'not' in member) addGroup(builder, member);
    else if ('topic' in member) addTopic(builder, member);
    else if (member.field.startsWith(PROPERTY_PREFIX)) addProperty(builder, member);
    else addColumn(builder, member);
  }

  function addColumn(builder: Knex.QueryBuilder, { field, op, value }: FieldCondition): void {
    const column = `${contactsAlias}.${field === 'email' ? 'email_normalized' : field}`;
    if (field === 'unsubscribed') builder.where(column, value as boolean);
    else if (field === 'created_at')
      builder.where(column, SQL_OPERATORS[op as 'gt'], parseFilterDate(value) as Date); // Date: same as repositories
    else addString(builder, column, op, value, field === 'email');
  }

  function addProperty(builder: Knex.QueryBuilder, { field, op, value }: FieldCondition): void {
    const key = field.slice(PROPERTY_PREFIX.length);
    const property = ctx.properties.get(key.toLowerCase());
    if (!property) throw new Error(`segment filter names undeclared property "${key}": validate it first`);
    // neq x = "no value equal to x" and exists false = "no value": both are NOT IN, so a contact
    // without a row matches them (contact_id is NOT NULL, so NOT IN never meets a NULL).
    const negated = op === 'neq' || (op === 'exists' && value === false);
    const positiveOp = op === 'neq' ? 'eq' : op;
    // Uncorrelated: one index range read of (property_id, folded_value | number_value,
    // contact_id) yields the ids, which MariaDB turns into a semi-join (or a materialized
    // look-up) and SQLite into an ephemeral index, instead of one probe per contact.
    const ids = (sub: Knex.QueryBuilder, byProperty = true) => {
      sub.select('segment_pv.contact_id').from('contact_property_values as segment_pv');
      if (byProperty) sub.where('segment_pv.property_id', property.id);
      const column = property.type === 'number' ? 'segment_pv.number_value' : 'segment_pv.folded_value';
      if (positiveOp === 'exists') sub.whereNotNull(column);
      else if (property.type === 'string') addFolded(sub, column, positiveOp, value);
      else if (positiveOp === 'in') sub.whereIn(column, value as number[]);
      else sub.where(column, SQL_OPERATORS[positiveOp as 'eq'], value as number);
    };
    if (correlated) {
      // SQLite: a probe of the (contact_id, property_id) key per contact costs less in process
      // than materializing a million ids into an ephemeral index (bench/segments.bench.ts).
      // The key is named first and the property id with a unary + (no index may use it), so
      // SQLite probes the primary key instead of walking the (property_id, ...) index per contact.
      const probe = (sub: Knex.QueryBuilder) => {
        sub
          .whereRaw('?? = ??', ['segment_pv.contact_id', contactId])
          .whereRaw('+?? = ?', ['segment_pv.property_id', property.id]);
        ids(sub, false);
      };
      if (negated) builder.whereNotExists(probe);
      else builder.whereExists(probe);
    } else if (negated) builder.whereNotIn(contactId, ids);
    else builder.whereIn(contactId, ids);
  }

  function addTopic(builder: Knex.QueryBuilder, { topic: topicId, subscription }: TopicCondition): void {
    const topic = ctx.topics.get(topicId.toLowerCase());
    if (!topic) throw new Error(`segment filter names unknown topic "${topicId}": validate it first`);
    const chose = (choice: Subscription) => (sub: Knex.QueryBuilder) =>
      sub
        .select('segment_ct.contact_id')
        .from('contact_topics as segment_ct')
        .where('segment_ct.topic_id', topic.id)
        .where('segment_ct.subscription', choice);
    // The default applies unless the contact chose otherwise; any other answer needs the choice.
    const other: Subscription = subscription === 'opt_in' ? 'opt_out' : 'opt_in';
    if (subscription === topic.defaultSubscription) builder.whereNotIn(contactId, chose(other));
    else builder.whereIn(contactId, chose(subscription));
  }

  query.where((builder) => addGroup(builder, filter));
}

/**
 * A case-insensitive string predicate. email_normalized is already lower-cased in JavaScript
 * (normalizeEmail), so the value is lower-cased the same way; other columns get LOWER() on both
 * sides, which folds the same way on both sides in each dialect. The IS NOT NULL / IS NULL terms
 * keep the result TRUE or FALSE for NULL columns (see the top of the file).
 */
function addString(
  builder: Knex.QueryBuilder,
  column: string,
  op: FilterOperator,
  value: FieldCondition['value'],
  lowerCased: boolean,
): void {
  const lhs = lowerCased ? '??' : 'LOWER(??)';
  const rhs = lowerCased ? '?' : 'LOWER(?)';
  const bind = (text: string) => (lowerCased ? text.toLowerCase() : text);
  switch (op) {
    case 'eq':
      builder.whereNotNull(column).whereRaw(`${lhs} = ${rhs}`, [column, bind(value as string)]);
      return;
    case 'neq':
      builder.whereNull(column).orWhereRaw(`${lhs} <> ${rhs}`, [column, bind(value as string)]);
      return;
    case 'contains':
      builder.whereNotNull(column).whereRaw(`${lhs} LIKE ? ESCAPE '!'`, [column, likeContains(value as string)]);
      return;
    case 'in': {
      const items = (value as string[]).map(bind);
      builder.whereNotNull(column).whereRaw(`${lhs} IN (${items.map(() => rhs).join(', ')})`, [column, ...items]);
      return;
    }
    case 'exists':
      if (value === true) builder.whereNotNull(column);
      else builder.whereNull(column);
      return;
    default:
      throw new Error(`operator ${op} does not apply to strings`);
  }
}

/**
 * A string property condition on contact_property_values.folded_value: the value folded in
 * JavaScript exactly as every writer folds the stored value (foldPropertyString), so eq and in
 * are index range reads; contains stays a LIKE, over the folded column (no LOWER() per row).
 * Rows always have a string here (the subquery selects rows, not contacts), so no NULL terms.
 */
function addFolded(
  builder: Knex.QueryBuilder,
  column: string,
  op: FilterOperator,
  value: FieldCondition['value'],
): void {
  switch (op) {
    case 'eq':
      builder.where(column, foldPropertyString(value as string));
      return;
    case 'contains':
      builder.whereRaw(`?? LIKE ? ESCAPE '!'`, [column, likeContains(foldPropertyString(value as string))]);
      return;
    case 'in':
      builder.whereIn(column, [...new Set((value as string[]).map(foldPropertyString))]);
      return;
    default:
      throw new Error(`operator ${op} does not apply to string properties`);
  }
}
