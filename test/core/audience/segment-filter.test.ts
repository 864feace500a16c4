import t from 'tap';
import {
  applySegmentFilter,
  validateSegmentFilter,
  type SegmentFilter,
  type SegmentFilterContext,
} from '../../../core/audience/segments/segment-filter.js';
import { foldPropertyString } from '../../../core/audience/contacts/property-value-row.js';
import { migrateLatest } from '../../../db/migrate.js';
import { connectTestDatabase, TEST_DB_KIND } from '../../helpers/test-database.js';

// connectTestDatabase = createTestDatabase() + connect(): a fresh database for this file.
const { db, close } = await connectTestDatabase();
t.teardown(close);
await migrateLatest(db.knex);

const TEAM_A = 'team-a';
const TEAM_B = 'team-b';
const [A1, A2, A3, A4, A5, B1] = ['a1', 'a2', 'a3', 'a4', 'a5', 'b1'];
const at = (iso: string) => new Date(iso);

/**
 * Team A's contacts (b1 is team B's lookalike of a1):
 *
 * | id | email                  | first | last     | unsub | created_at               | plan     | score  | news*   | promo*  |
 * | a1 | Ada@Example.com        | Ada   | Lovelace | no    | 2026-01-10T00:00:00Z     | Pro      | 10     | opt_in  | opt_in! |
 * | a2 | bob@test.org           | bob   | -        | yes   | 2026-01-31T00:00:00Z     | free     | 2.5    | opt_out!| opt_out |
 * | a3 | carol_100%@example.com | -     | Smith    | no    | 2026-01-31T10:00:00Z     | -        | 0      | opt_in! | opt_out!|
 * | a4 | dave@example.org       | Dave  | SMITH    | no    | 2026-02-15T12:00:00.500Z | PRO PLUS | (NULL) | opt_in  | opt_out |
 * | a5 | eve@example.com        | Eve   | -        | no    | 2025-12-31T23:59:59.999Z | -        | -      | opt_in  | opt_out |
 *
 * news defaults to opt_in, promo to opt_out; ! marks a contact_topics row (the rest are defaults).
 * a4's score row holds NULL, which counts as no value.
 */
async function seed(): Promise<void> {
  const now = new Date('2026-03-01T00:00:00Z');
  await db.knex('teams').insert([
    { id: TEAM_A, name: 'A', slug: 'a', created_at: now, updated_at: now },
    { id: TEAM_B, name: 'B', slug: 'b', created_at: now, updated_at: now },
  ]);
  const contact = (id: string, team: string, email: string, first: string | null, last: string | null) => ({
    id,
    team_id: team,
    email,
    email_normalized: email.toLowerCase(),
    first_name: first,
    last_name: last,
    updated_at: now,
  });
  await db.knex('contacts').insert([
    { ...contact(A1, TEAM_A, 'Ada@Example.com', 'Ada', 'Lovelace'), unsubscribed: false, created_at: at('2026-01-10') },
    { ...contact(A2, TEAM_A, 'bob@test.org', 'bob', null), unsubscribed: true, created_at: at('2026-01-31') },
    {
      ...contact(A3, TEAM_A, 'carol_100%@example.com', null, 'Smith'),
      unsubscribed: false,
      created_at: at('2026-01-31T10:00:00Z'),
    },
    {
      ...contact(A4, TEAM_A, 'dave@example.org', 'Dave', 'SMITH'),
      unsubscribed: false,
      created_at: at('2026-02-15T12:00:00.500Z'),
    },
    {
      ...contact(A5, TEAM_A, 'eve@example.com', 'Eve', null),
      unsubscribed: false,
      created_at: at('2025-12-31T23:59:59.999Z'),
    },
    { ...contact(B1, TEAM_B, 'ada@example.com', 'Ada', 'Lovelace'), unsubscribed: true, created_at: at('2026-01-10') },
  ]);
  const property = (id: string, team: string, key: string, type: string) => ({
    id,
    team_id: team,
    key,
    key_normalized: key.toLowerCase(),
    type,
    created_at: now,
  });
  await db
    .knex('contact_properties')
    .insert([
      property('pa-plan', TEAM_A, 'Plan', 'string'),
      property('pa-score', TEAM_A, 'score', 'number'),
      property('pb-plan', TEAM_B, 'plan', 'string'),
    ]);
  const value = (contact_id: string, property_id: string, team_id: string, s: string | null, n: number | null) => ({
    contact_id,
    property_id,
    team_id,
    string_value: s,
    // As every writer stores it (propertyValueRow): the segment compiler reads the fold.
    folded_value: s === null ? null : foldPropertyString(s),
    number_value: n,
  });
  await db
    .knex('contact_property_values')
    .insert([
      value(A1, 'pa-plan', TEAM_A, 'Pro', null),
      value(A2, 'pa-plan', TEAM_A, 'free', null),
      value(A4, 'pa-plan', TEAM_A, 'PRO PLUS', null),
      value(A1, 'pa-score', TEAM_A, null, 10),
      value(A2, 'pa-score', TEAM_A, null, 2.5),
      value(A3, 'pa-score', TEAM_A, null, 0),
      value(A4, 'pa-score', TEAM_A, null, null),
      value(B1, 'pb-plan', TEAM_B, 'Pro', null),
    ]);
  const topic = (id: string, team: string, name: string, default_subscription: string) => ({
    id,
    team_id: team,
    name,
    live_name: name,
    default_subscription,
    visibility: 'public',
    created_at: now,
  });
  await db
    .knex('topics')
    .insert([
      topic('ta-news', TEAM_A, 'news', 'opt_in'),
      topic('ta-promo', TEAM_A, 'promo', 'opt_out'),
      topic('tb-news', TEAM_B, 'news', 'opt_in'),
    ]);
  const choice = (contact_id: string, topic_id: string, team_id: string, subscription: string) => ({
    contact_id,
    topic_id,
    team_id,
    subscription,
    updated_at: now,
  });
  await db
    .knex('contact_topics')
    .insert([
      choice(A1, 'ta-promo', TEAM_A, 'opt_in'),
      choice(A2, 'ta-news', TEAM_A, 'opt_out'),
      choice(A3, 'ta-news', TEAM_A, 'opt_in'),
      choice(A3, 'ta-promo', TEAM_A, 'opt_out'),
      choice(B1, 'tb-news', TEAM_B, 'opt_out'),
    ]);
}
await seed();

const ctxA: SegmentFilterContext = {
  properties: new Map([
    ['plan', { id: 'pa-plan', key: 'Plan', type: 'string' }],
    ['score', { id: 'pa-score', key: 'score', type: 'number' }],
  ]),
  topics: new Map([
    ['ta-news', { id: 'ta-news', defaultSubscription: 'opt_in' }],
    ['ta-promo', { id: 'ta-promo', defaultSubscription: 'opt_out' }],
  ]),
};

/** The ids of `team`'s contacts the (validated) filter selects, the way a caller scopes it. */
async function select(input: unknown, team = TEAM_A, ctx = ctxA): Promise<string[]> {
  const result = validateSegmentFilter(input, ctx);
  if (!result.ok) throw new Error(`invalid filter: ${JSON.stringify(result.errors)}`);
  const query = db.knex('contacts as c').select('c.id').where('c.team_id', team).orderBy('c.id');
  applySegmentFilter(query, result.filter, ctx, 'c');
  return ((await query) as Array<{ id: string }>).map((row) => row.id);
}

const all = (...members: unknown[]) => ({ all: members });
const cond = (field: string, op: string, value: unknown) => ({ field, op, value });

// Every field x operator, with the contacts each one selects from the table above.
const cases: Array<[string, unknown, string[]]> = [
  ['email eq (case-insensitive)', cond('email', 'eq', 'ADA@example.com'), [A1]],
  ['email neq', cond('email', 'neq', 'ada@example.com'), [A2, A3, A4, A5]],
  ['email contains', cond('email', 'contains', 'EXAMPLE.COM'), [A1, A3, A5]],
  ['email contains % literally', cond('email', 'contains', '0%@'), [A3]],
  ['email contains _ literally', cond('email', 'contains', '_'), [A3]],
  ['email in', cond('email', 'in', ['BOB@test.org', 'eve@example.com', 'nobody@x.y']), [A2, A5]],
  ['first_name eq', cond('first_name', 'eq', 'ADA'), [A1]],
  ['first_name eq (stored lower-case)', cond('first_name', 'eq', 'Bob'), [A2]],
  ['first_name neq matches absent', cond('first_name', 'neq', 'ada'), [A2, A3, A4, A5]],
  ['first_name contains', cond('first_name', 'contains', 'A'), [A1, A4]],
  ['first_name exists', cond('first_name', 'exists', true), [A1, A2, A4, A5]],
  ['first_name not exists', cond('first_name', 'exists', false), [A3]],
  ['first_name in', cond('first_name', 'in', ['dave', 'EVE']), [A4, A5]],
  ['last_name eq', cond('last_name', 'eq', 'smith'), [A3, A4]],
  ['last_name neq matches absent', cond('last_name', 'neq', 'smith'), [A1, A2, A5]],
  ['last_name contains', cond('last_name', 'contains', 'LACE'), [A1]],
  ['last_name exists', cond('last_name', 'exists', true), [A1, A3, A4]],
  ['last_name not exists', cond('last_name', 'exists', false), [A2, A5]],
  ['last_name in', cond('last_name', 'in', ['Lovelace', 'nobody']), [A1]],
  ['unsubscribed eq true', cond('unsubscribed', 'eq', true), [A2]],
  ['unsubscribed eq false', cond('unsubscribed', 'eq', false), [A1, A3, A4, A5]],
  ['created_at gt date (midnight UTC)', cond('created_at', 'gt', '2026-01-31'), [A3, A4]],
  ['created_at gte date', cond('created_at', 'gte', '2026-01-31'), [A2, A3, A4]],
  ['created_at lt date', cond('created_at', 'lt', '2026-01-31'), [A1, A5]],
  ['created_at lte date', cond('created_at', 'lte', '2026-01-31'), [A1, A2, A5]],
  ['created_at gte date-time', cond('created_at', 'gte', '2026-01-31T10:00:00Z'), [A3, A4]],
  ['created_at gt date-time with offset', cond('created_at', 'gt', '2026-01-31T12:00:00+02:00'), [A4]],
  ['created_at lt new year', cond('created_at', 'lt', '2026-01-01T00:00:00Z'), [A5]],
  ['created_at gt, milliseconds below', cond('created_at', 'gt', '2026-02-15T12:00:00.499Z'), [A4]],
  ['created_at gt, milliseconds equal', cond('created_at', 'gt', '2026-02-15T12:00:00.500Z'), []],
  ['string property eq', cond('properties.plan', 'eq', 'pro'), [A1]],
  ['property key is case-insensitive', cond('properties.PLAN', 'eq', 'PRO'), [A1]],
  ['string property neq matches absent', cond('properties.plan', 'neq', 'pro'), [A2, A3, A4, A5]],
  ['string property contains', cond('properties.plan', 'contains', 'pro'), [A1, A4]],
  ['string property exists', cond('properties.plan', 'exists', true), [A1, A2, A4]],
  ['string property not exists', cond('properties.plan', 'exists', false), [A3, A5]],
  ['string property in', cond('properties.plan', 'in', ['free', 'pro plus']), [A2, A4]],
  ['number property eq', cond('properties.score', 'eq', 10), [A1]],
  ['number property eq 0', cond('properties.score', 'eq', 0), [A3]],
  ['number property neq matches absent', cond('properties.score', 'neq', 10), [A2, A3, A4, A5]],
  ['number property gt', cond('properties.score', 'gt', 2.5), [A1]],
  ['number property gte', cond('properties.score', 'gte', 2.5), [A1, A2]],
  ['number property lt', cond('properties.score', 'lt', 2.5), [A3]],
  ['number property lte', cond('properties.score', 'lte', 2.5), [A2, A3]],
  ['number property in', cond('properties.score', 'in', [0, 10]), [A1, A3]],
  ['number property exists (NULL is none)', cond('properties.score', 'exists', true), [A1, A2, A3]],
  ['number property not exists', cond('properties.score', 'exists', false), [A4, A5]],
  ['topic opt_in, default opt_in', { topic: 'ta-news', subscription: 'opt_in' }, [A1, A3, A4, A5]],
  ['topic opt_out, default opt_in', { topic: 'ta-news', subscription: 'opt_out' }, [A2]],
  ['topic opt_in, default opt_out', { topic: 'ta-promo', subscription: 'opt_in' }, [A1]],
  ['topic opt_out, default opt_out', { topic: 'ta-promo', subscription: 'opt_out' }, [A2, A3, A4, A5]],
  ['topic id is case-insensitive', { topic: 'TA-PROMO', subscription: 'opt_in' }, [A1]],
];

t.test(`every field and operator on ${TEST_DB_KIND}`, async (t) => {
  for (const [name, condition, expected] of cases) t.same(await select(all(condition)), expected, name);
});

t.test(`groups on ${TEST_DB_KIND}`, async (t) => {
  t.same(await select(all(cond('first_name', 'exists', true), cond('unsubscribed', 'eq', false))), [A1, A4, A5], 'all');
  t.same(
    await select({ any: [cond('email', 'eq', 'bob@test.org'), cond('last_name', 'eq', 'smith')] }),
    [A2, A3, A4],
    'any',
  );
  t.same(await select({ not: [cond('first_name', 'eq', 'ada')] }), [A2, A3, A4, A5], 'not keeps NULL first names');
  t.same(
    await select({ not: [cond('first_name', 'contains', 'a'), cond('last_name', 'eq', 'smith')] }),
    [A2, A5],
    'not = none of its members',
  );
  t.same(
    await select({ not: [cond('properties.plan', 'eq', 'pro'), { topic: 'ta-promo', subscription: 'opt_in' }] }),
    [A2, A3, A4, A5],
    'not over EXISTS subqueries',
  );
  // any1: NOT(unsubscribed OR has last name) = {a5}, or score >= 10 = {a1}; any2: promo opt_in {a1} or bob {a2}.
  const nested = all(
    {
      any: [
        { not: [cond('unsubscribed', 'eq', true), cond('last_name', 'exists', true)] },
        cond('properties.score', 'gte', 10),
      ],
    },
    { any: [{ topic: 'ta-promo', subscription: 'opt_in' }, cond('first_name', 'eq', 'bob')] },
  );
  t.same(await select(nested), [A1], 'three levels deep');
  t.same(await select(all(cond('first_name', 'eq', "x' OR 1=1 --"))), [], 'a quote in a value is only a value');
});

t.test(`another team's contacts never match on ${TEST_DB_KIND}`, async (t) => {
  // b1 looks like a1 (same email, names, plan "Pro") but belongs to team B.
  t.same(
    await select({ any: [cond('first_name', 'eq', 'ada'), cond('email', 'contains', 'example.com')] }),
    [A1, A3, A5],
    'an "any" root stays inside the team scope',
  );
  t.same(await select({ not: [cond('email', 'eq', 'nobody@x.y')] }), [A1, A2, A3, A4, A5], 'a "not" root too');
  t.same(
    await select(all(cond('properties.plan', 'eq', 'pro')), TEAM_B),
    [],
    "team A's property never sees B's values",
  );
  t.same(await select(all({ topic: 'ta-news', subscription: 'opt_out' }), TEAM_B), [], "nor A's topic B's choices");
  t.same(await select(all(cond('email', 'eq', 'ada@example.com')), TEAM_B), [B1], 'while B sees its own');
});

t.test('values are bound, never spliced into SQL', async (t) => {
  const query = db.knex('contacts as c').select('c.id');
  applySegmentFilter(query, { all: [{ field: 'first_name', op: 'contains', value: 'O%Brien' }] }, ctxA, 'c');
  const { sql, bindings } = query.toSQL();
  t.notMatch(sql, /Brien/);
  t.ok(bindings.includes('%o!%brien%'), 'the LIKE pattern is escaped and bound');
});

t.test('validation: a valid filter comes back as given', async (t) => {
  const input = all(cond('email', 'in', ['a@b.c']), {
    any: [{ topic: 'ta-news', subscription: 'opt_out' }, { not: [cond('properties.Score', 'lt', 3)] }],
  });
  const result = validateSegmentFilter(input, ctxA);
  t.same(result, { ok: true, filter: input });
});

function errorsOf(input: unknown) {
  const result = validateSegmentFilter(input, ctxA);
  return result.ok ? [] : result.errors;
}

t.test('validation: one entry per offending condition, with its path', async (t) => {
  const errors = errorsOf(
    all(
      cond('first_name', 'gt', 'x'),
      cond('email', 'eq', 'fine@example.com'),
      {
        any: [
          cond('last_name', 'eq', 'ok'),
          cond('properties.plan2', 'eq', 'x'),
          { topic: 'nope', subscription: 'opt_in' },
        ],
      },
      5,
      { field: 'email', op: 'eq', value: 'x', extra: 1 },
      { field: 'first_name', op: 'eq', value: 'x', topic: 'ta-news', subscription: 'opt_in' },
      // Three problems (unknown key, bad operator, bad value) still make one entry.
      { field: 'first_name', op: 'gt', value: 5, color: 'red' },
      cond('properties.score', 'contains', '1'),
      cond('nickname', 'eq', 'x'),
    ),
  );
  t.same(errors, [
    {
      path: 'filter.all[0]',
      message: 'operator "gt" is not allowed for first_name (allowed: eq, neq, contains, exists, in)',
    },
    { path: 'filter.all[2].any[1]', message: 'undeclared property "plan2"' },
    { path: 'filter.all[2].any[2]', message: 'unknown topic "nope"' },
    {
      path: 'filter.all[3]',
      message:
        'expected a condition ({field, op, value} or {topic, subscription}) or a group ({"all" | "any" | "not": [...]})',
    },
    { path: 'filter.all[4]', message: 'unknown key "extra" in a condition' },
    { path: 'filter.all[5]', message: 'a condition is either {field, op, value} or {topic, subscription}, not both' },
    { path: 'filter.all[6]', message: 'unknown key "color" in a condition' },
    {
      path: 'filter.all[7]',
      message:
        'operator "contains" is not allowed for properties.score (allowed: eq, neq, gt, gte, lt, lte, in, exists)',
    },
    {
      path: 'filter.all[8]',
      message:
        'unknown field "nickname" (fields: email, first_name, last_name, unsubscribed, created_at, properties.<key>)',
    },
  ]);
});

t.test('validation: values', async (t) => {
  const bad: Array<[unknown, string]> = [
    [cond('first_name', 'eq', ''), 'value for first_name eq must be a string of 1 to 500 characters'],
    [cond('first_name', 'eq', 'x'.repeat(501)), 'value for first_name eq must be a string of 1 to 500 characters'],
    [cond('email', 'contains', 7), 'value for email contains must be a string of 1 to 500 characters'],
    [{ field: 'email', op: 'eq' }, 'value for email eq must be a string of 1 to 500 characters'],
    [{ field: 'email', value: 'x' }, 'missing operator for email (allowed: eq, neq, contains, in)'],
    [cond('email', 'exists', true), 'operator "exists" is not allowed for email (allowed: eq, neq, contains, in)'],
    [
      cond('last_name', 'in', []),
      'value for last_name in must be an array of 1 to 100 values, each a string of 1 to 500 characters',
    ],
    [
      cond(
        'last_name',
        'in',
        Array.from({ length: 101 }, (_, i) => `n${i}`),
      ),
      'value for last_name in must be an array of 1 to 100 values, each a string of 1 to 500 characters',
    ],
    [
      cond('properties.score', 'in', [1, '2']),
      'value for properties.score in must be an array of 1 to 100 values, each a finite number',
    ],
    [cond('properties.score', 'gt', '5'), 'value for properties.score gt must be a finite number'],
    [cond('properties.score', 'eq', Number.NaN), 'value for properties.score eq must be a finite number'],
    [cond('properties.score', 'eq', Infinity), 'value for properties.score eq must be a finite number'],
    [cond('properties.plan', 'exists', 'yes'), 'value for properties.plan exists must be true or false'],
    [cond('unsubscribed', 'eq', 'true'), 'value for unsubscribed eq must be true or false'],
    [cond('unsubscribed', 'neq', true), 'operator "neq" is not allowed for unsubscribed (allowed: eq)'],
    [cond('created_at', 'eq', '2026-01-31'), 'operator "eq" is not allowed for created_at (allowed: gt, gte, lt, lte)'],
    ...['2026-02-30', '2026-01-31T10:00:00', '2026-01-31T24:00:00Z', 'yesterday', '2026-1-31', 20260131].map(
      (value): [unknown, string] => [
        cond('created_at', 'gt', value),
        'value for created_at gt must be an ISO 8601 date or date-time with a time zone (2026-01-31 or 2026-01-31T10:00:00Z)',
      ],
    ),
    [{ topic: 'ta-news', subscription: 'maybe' }, 'subscription for topic "ta-news" must be "opt_in" or "opt_out"'],
    [{ topic: 7, subscription: 'opt_in' }, 'topic must be a topic ID'],
    [
      {},
      'expected a condition ({field, op, value} or {topic, subscription}) or a group ({"all" | "any" | "not": [...]})',
    ],
  ];
  for (const [condition, message] of bad)
    t.same(errorsOf(all(condition)), [{ path: 'filter.all[0]', message }], message);
  for (const value of ['2026-01-31', '2026-01-31T10:00Z', '2026-01-31T10:00:00.123456-05:30', '0099-01-01'])
    t.same(errorsOf(all(cond('created_at', 'gte', value))), [], `${value} is a date`);
});

t.test('validation: groups, depth and count', async (t) => {
  const rootMessage = 'the filter must be a group: an object with one of "all", "any" or "not"';
  for (const input of [null, undefined, 5, 'all', true, [], [{ all: [] }], {}, cond('email', 'eq', 'x')])
    t.same(errorsOf(input), [{ path: 'filter', message: rootMessage }], `root ${JSON.stringify(input)}`);
  t.same(errorsOf({ all: [] }), [
    { path: 'filter', message: '"all" must be a non-empty array of conditions or groups' },
  ]);
  t.same(errorsOf({ not: { field: 'email' } }), [
    { path: 'filter', message: '"not" must be a non-empty array of conditions or groups' },
  ]);
  t.same(errorsOf({ all: [cond('email', 'eq', 'x')], any: [] }), [
    { path: 'filter', message: 'a group has exactly one of "all", "any" or "not" (found all, any)' },
  ]);
  t.same(errorsOf({ all: [cond('email', 'eq', 'x')], name: 'x' }), [
    { path: 'filter', message: 'unknown key "name" in a group' },
  ]);
  t.same(errorsOf(all({ any: [] })), [
    { path: 'filter.all[0]', message: '"any" must be a non-empty array of conditions or groups' },
  ]);

  const leaf = cond('email', 'eq', 'x');
  t.same(errorsOf(all({ any: [{ not: [leaf] }] })), [], 'three levels are allowed');
  t.same(errorsOf(all({ any: [{ not: [{ all: [leaf] }] }] })), [
    { path: 'filter.all[0].any[0].not[0]', message: 'nesting deeper than 3 levels' },
  ]);
  let deep: unknown = leaf;
  for (let i = 0; i < 100_000; i++) deep = { any: [deep] };
  t.same(errorsOf(deep), [{ path: 'filter.any[0].any[0].any[0]', message: 'nesting deeper than 3 levels' }]);

  const conditions = (n: number) => Array.from({ length: n }, (_, i) => cond('email', 'eq', `c${i}@x.y`));
  t.same(errorsOf({ all: conditions(20) }), [], '20 conditions');
  t.same(errorsOf({ all: [...conditions(10), { any: conditions(10) }, { not: conditions(3) }] }), [
    { path: 'filter', message: 'more than 20 conditions (found 23)' },
  ]);
});

t.test('validation never throws on odd JSON', async (t) => {
  // A seeded generator of arbitrary JSON, biased towards the grammar's own keys and values.
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)] as T;
  const keys = ['all', 'any', 'not', 'field', 'op', 'value', 'topic', 'subscription', '__proto__', 'constructor'];
  const scalars = [null, true, false, 0, -1, 1e308, '', 'email', 'properties.plan', 'eq', 'in', 'ta-news', 'opt_in'];
  const json = (depth: number): unknown => {
    const roll = random();
    if (depth > 5 || roll < 0.4) return pick(scalars);
    if (roll < 0.6) return Array.from({ length: Math.floor(random() * 4) }, () => json(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(random() * 4) }, () => [pick(keys), json(depth + 1)]));
  };
  let failures = 0;
  for (let i = 0; i < 2000; i++) {
    const input = JSON.parse(JSON.stringify(json(0)) ?? 'null') as unknown;
    try {
      validateSegmentFilter(input, ctxA);
    } catch {
      failures++;
    }
  }
  t.equal(failures, 0);
  t.doesNotThrow(() => validateSegmentFilter(JSON.parse('{"all":[{"__proto__":{"field":"email"}}]}'), ctxA));
});

t.test('a filter the ctx no longer covers fails when the query is built', async (t) => {
  const filter: SegmentFilter = { all: [{ field: 'properties.gone', op: 'eq', value: 'x' }] };
  const query = db.knex('contacts as c').select('c.id');
  applySegmentFilter(query, filter, ctxA, 'c');
  await t.rejects(async () => await query, /undeclared property "gone"/);
});
