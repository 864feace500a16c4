import t from 'tap';
import {
  checkGraph,
  propertyKeysOfGraph,
  type ConnectionInput,
  type GraphInput,
  type StepInput,
} from '../../../core/automations/graph-validation.js';
import { checkTeamReferences, type TeamLookups } from '../../../core/automations/team-references.js';
import { PLATFORM_TRIGGERS } from '../../../core/automations/automation.types.js';

/** Table-driven: every graph rule, each answered with exactly one errors[] entry per offending key. */
const TOPIC = '01900000-0000-7000-8000-000000000001';
const SEGMENT = '01900000-0000-7000-8000-000000000002';
const TEMPLATE = '01900000-0000-7000-8000-000000000003';
const DRAFT = '01900000-0000-7000-8000-000000000004';
const now = new Date('2026-06-01T12:00:00Z');
const ctx = {
  now,
  properties: new Map([
    ['plan', { id: 'p1', key: 'plan', type: 'string' as const }],
    ['score', { id: 'p2', key: 'score', type: 'number' as const }],
  ]),
  topics: new Map([[TOPIC, { id: TOPIC, defaultSubscription: 'opt_in' as const }]]),
};
const lookups: TeamLookups = {
  customEventId: async (name) => (name === 'user.signed_up' ? '0198c0de-0000-7000-8000-000000000001' : undefined),
  segmentExists: async (id) => id === SEGMENT,
  templateState: async (id) => (id === TEMPLATE ? 'published' : id === DRAFT ? 'draft' : 'missing'),
};

const trigger: StepInput = { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } };
const step = (key: string, type: string, config: Record<string, unknown>): StepInput => ({ key, type, config });
const edge = (from: string, to: string, type?: string): ConnectionInput => ({ from, to, ...(type ? { type } : {}) });

/** A valid graph using every available step type. */
const valid = (): GraphInput => ({
  steps: [
    trigger,
    step('wait', 'delay', { duration: '2 days' }),
    step('check', 'condition', {
      type: 'and',
      rules: [
        { type: 'rule', field: 'properties.plan', operator: 'eq', value: 'pro' },
        { type: 'rule', field: 'first_name', operator: 'exists' },
      ],
    }),
    step('mail', 'send_email', { template: { id: TEMPLATE, variables: { a: 1 } }, topic_id: TOPIC }),
    step('tag', 'contact_update', { first_name: 'Ada', unsubscribed: false, properties: { score: 3, plan: null } }),
    step('seg', 'add_to_segment', { segment_id: SEGMENT }),
    step('topic', 'topic_update', { topic_id: TOPIC, subscription: 'opt_out' }),
  ],
  connections: [
    edge('start', 'wait'),
    edge('wait', 'check', 'default'),
    edge('check', 'mail', 'condition_met'),
    edge('check', 'tag', 'condition_not_met'),
    edge('mail', 'seg'),
    edge('tag', 'topic'),
  ],
});

async function errorsOf(graph: GraphInput) {
  const check = checkGraph(graph, ctx);
  await checkTeamReferences(check.references, lookups, check.problems);
  return check.problems.toErrors();
}

t.test('a valid graph with every step type passes', async (t) => {
  t.same(await errorsOf(valid()), []);
  const check = checkGraph(valid(), ctx);
  t.equal(check.connections[0]!.type, 'default', 'an omitted connection type is filled in');
  t.same(propertyKeysOfGraph(check.steps).sort(), ['plan', 'score']);
});

t.test('every platform trigger is accepted, and only those', async (t) => {
  t.ok(PLATFORM_TRIGGERS.includes('svc:contact.created'));
  t.ok(PLATFORM_TRIGGERS.includes('svc:email.delivered'));
  for (const name of PLATFORM_TRIGGERS) {
    const g = valid();
    // svc:segment.entered watches one segment: it must name it.
    const subject = name === 'svc:segment.entered' ? { segment_id: SEGMENT } : {};
    g.steps[0] = step('start', 'trigger', { event_name: name, ...subject });
    t.same(await errorsOf(g), [], name);
  }
});

t.test('platform triggers name their segment or topic, and only those that have one', async (t) => {
  const withTrigger = async (config: Record<string, unknown>) => {
    const g = valid();
    g.steps[0] = step('start', 'trigger', config);
    return errorsOf(g);
  };
  t.same(await withTrigger({ event_name: 'svc:topic.subscribed', topic_id: TOPIC }), [], 'one topic');
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ event_name: 'svc:segment.entered' }, /segment_id must name the segment/],
    [{ event_name: 'svc:segment.entered', segment_id: '01900000-0000-7000-8000-0000000000ff' }, /no segment/],
    [{ event_name: 'svc:topic.subscribed', topic_id: '01900000-0000-7000-8000-0000000000ff' }, /topic_id: no topic/],
    [{ event_name: 'svc:contact.created', segment_id: SEGMENT }, /unknown config key segment_id/],
    [{ event_name: 'user.signed_up', topic_id: TOPIC }, /unknown config key topic_id/],
  ];
  for (const [config, message] of cases) {
    const errors = await withTrigger(config);
    t.equal(errors.length, 1, JSON.stringify(config));
    t.equal(errors[0]?.path, 'steps.start');
    t.match(errors[0]?.message, message);
  }
});

type Case = {
  name: string;
  change: (g: GraphInput) => void;
  /** The paths expected, exactly one entry each. */
  paths: string[];
  message?: RegExp;
};
const replaceStep = (g: GraphInput, key: string, next: StepInput) => {
  g.steps[g.steps.findIndex((s) => s.key === key)] = next;
};
const setConfig = (key: string, config: Record<string, unknown>) => (g: GraphInput) =>
  replaceStep(g, key, step(key, g.steps.find((s) => s.key === key)!.type, config));

const cases: Case[] = [
  {
    name: 'more than 150 steps',
    change: (g) => {
      for (let i = 0; i < 150; i++) g.steps.push(step(`d${i}`, 'delay', { duration: '1 hour' }));
    },
    paths: ['steps'],
    message: /at most 150 steps/,
  },
  {
    name: 'no trigger',
    change: (g) => {
      g.steps.shift();
      g.connections.shift();
    },
    paths: ['steps'],
    message: /exactly one trigger/,
  },
  {
    name: 'two triggers',
    change: (g) => {
      g.steps.push(step('again', 'trigger', { event_name: 'svc:contact.created' }));
    },
    paths: ['steps.again'],
    message: /exactly one trigger/,
  },
  {
    name: 'duplicate keys',
    change: (g) => {
      g.steps.push(step('wait', 'delay', { duration: '1 hour' }));
    },
    paths: ['steps.wait'],
    message: /unique/,
  },
  {
    name: 'an empty key',
    change: (g) => {
      g.steps.push(step('', 'delay', { duration: '1 hour' }));
    },
    paths: ['steps.7'],
    message: /key must be/,
  },
  {
    name: 'unreachable step',
    change: (g) => {
      g.steps.push(step('orphan', 'delay', { duration: '1 hour' }));
    },
    paths: ['steps.orphan'],
    message: /not reachable/,
  },
  {
    name: 'a cycle',
    change: (g) => {
      g.connections.push(edge('seg', 'wait'));
    },
    paths: ['steps.seg'],
    message: /closes a cycle/,
  },
  {
    name: 'a self loop',
    change: (g) => {
      g.connections.push(edge('topic', 'topic'));
    },
    paths: ['steps.topic'],
    message: /closes a cycle/,
  },
  {
    name: 'two outgoing connections from a non-condition',
    change: (g) => {
      g.connections.push(edge('start', 'seg'));
    },
    paths: ['steps.start'],
    message: /at most one outgoing/,
  },
  {
    name: 'a condition branch from a non-condition',
    change: (g) => {
      g.connections[0] = edge('start', 'wait', 'condition_met');
    },
    paths: ['steps.start'],
    message: /only a condition/,
  },
  {
    name: 'a default connection out of a condition',
    change: (g) => {
      g.connections[2] = edge('check', 'mail', 'default');
    },
    paths: ['steps.check'],
    message: /not default/,
  },
  {
    name: 'two condition_met branches (with several problems on one key: still one entry)',
    change: (g) => {
      g.connections.push(edge('check', 'seg', 'condition_met'), edge('check', 'topic', 'default'));
    },
    paths: ['steps.check'],
    message: /at most one condition_met.*|not default/,
  },
  {
    name: 'refused step type wait_for_event',
    change: (g) => replaceStep(g, 'seg', step('seg', 'wait_for_event', { event_name: 'x' })),
    paths: ['steps.seg'],
    message: /wait_for_event is not available/,
  },
  {
    name: 'refused step type contact_delete',
    change: (g) => replaceStep(g, 'seg', step('seg', 'contact_delete', {})),
    paths: ['steps.seg'],
    message: /contact_delete is not available/,
  },
  {
    name: 'unknown step type',
    change: (g) => replaceStep(g, 'seg', step('seg', 'launch_rocket', {})),
    paths: ['steps.seg'],
    message: /unknown step type/,
  },
  {
    name: 'refused connection type timeout',
    change: (g) => {
      g.connections[4] = edge('mail', 'seg', 'timeout');
    },
    // The connection is refused, and seg is left unreachable.
    paths: ['connections.4', 'steps.seg'],
    message: /timeout is not available/,
  },
  {
    name: 'refused connection type event_received',
    change: (g) => {
      g.connections.push(edge('seg', 'topic', 'event_received'));
    },
    paths: ['connections.6'],
    message: /event_received is not available/,
  },
  {
    name: 'unknown connection type',
    change: (g) => {
      g.connections.push(edge('seg', 'topic', 'sideways'));
    },
    paths: ['connections.6'],
    message: /unknown connection type/,
  },
  {
    name: 'a connection naming unknown keys',
    change: (g) => {
      g.connections.push(edge('nowhere', 'neither'));
    },
    paths: ['connections.6'],
    message: /from: no step has the key "nowhere"; to: no step has the key "neither"/,
  },
  // Configs.
  { name: 'trigger without event_name', change: setConfig('start', {}), paths: ['steps.start'] },
  {
    name: 'trigger naming an unknown custom event',
    change: setConfig('start', { event_name: 'order.placed' }),
    paths: ['steps.start'],
    message: /no live custom event/,
  },
  {
    name: 'trigger naming an unknown platform event',
    change: setConfig('start', { event_name: 'svc:contact.deleted' }),
    paths: ['steps.start'],
    message: /unknown platform event/,
  },
  {
    name: 'trigger with an unknown config key',
    change: setConfig('start', { event_name: 'user.signed_up', filter: 1 }),
    paths: ['steps.start'],
    message: /unknown config key filter/,
  },
  {
    name: 'send_email without template',
    change: setConfig('mail', {}),
    paths: ['steps.mail'],
    message: /template must be/,
  },
  {
    name: 'send_email naming a missing template',
    change: setConfig('mail', { template: { id: 'nope' } }),
    paths: ['steps.mail'],
    message: /no template/,
  },
  {
    name: 'send_email naming a draft template',
    change: setConfig('mail', { template: { id: DRAFT } }),
    paths: ['steps.mail'],
    message: /not published/,
  },
  {
    name: 'send_email naming an unknown topic',
    change: setConfig('mail', { template: { id: TEMPLATE }, topic_id: SEGMENT }),
    paths: ['steps.mail'],
    message: /topic_id/,
  },
  {
    name: 'delay with neither duration nor until',
    change: setConfig('wait', {}),
    paths: ['steps.wait'],
    message: /exactly one/,
  },
  {
    name: 'delay with both',
    change: setConfig('wait', { duration: '1 day', until: '2026-06-02T00:00:00Z' }),
    paths: ['steps.wait'],
  },
  {
    name: 'delay with an unreadable duration',
    change: setConfig('wait', { duration: 'a fortnight' }),
    paths: ['steps.wait'],
    message: /duration must be/,
  },
  {
    name: 'delay over 30 days',
    change: setConfig('wait', { duration: '31 days' }),
    paths: ['steps.wait'],
    message: /30 days/,
  },
  {
    name: 'delay until more than 30 days out',
    change: setConfig('wait', { until: '2026-07-15T00:00:00Z' }),
    paths: ['steps.wait'],
    message: /30 days/,
  },
  {
    name: 'delay until in the past',
    change: setConfig('wait', { until: '2026-05-01T00:00:00Z' }),
    paths: ['steps.wait'],
    message: /future/,
  },
  {
    name: 'condition on an undeclared property',
    change: setConfig('check', { type: 'rule', field: 'properties.nope', operator: 'eq', value: 'x' }),
    paths: ['steps.check'],
    message: /undeclared property/,
  },
  {
    name: 'condition with an operator unsuited to the field',
    change: setConfig('check', { type: 'rule', field: 'unsubscribed', operator: 'gt', value: 1 }),
    paths: ['steps.check'],
    message: /not allowed/,
  },
  {
    name: 'condition with starts_with',
    change: setConfig('check', { type: 'rule', field: 'email', operator: 'starts_with', value: 'a' }),
    paths: ['steps.check'],
    message: /not available/,
  },
  {
    name: 'condition that is not a rule tree',
    change: setConfig('check', { all: [] }),
    paths: ['steps.check'],
  },
  {
    name: 'condition with two bad rules: one entry for the step',
    change: setConfig('check', {
      type: 'or',
      rules: [
        { type: 'rule', field: 'nope', operator: 'eq', value: 'x' },
        { type: 'rule', field: 'properties.score', operator: 'eq', value: 'x' },
      ],
    }),
    paths: ['steps.check'],
    message: /config\.rules\[0\].*config\.rules\[1\]/,
  },
  {
    name: 'contact_update with nothing to set',
    change: setConfig('tag', {}),
    paths: ['steps.tag'],
    message: /at least one/,
  },
  {
    name: 'contact_update with a variable instead of a literal',
    change: setConfig('tag', { first_name: { var: 'name' } }),
    paths: ['steps.tag'],
    message: /literal/,
  },
  {
    name: 'contact_update naming an undeclared property',
    change: setConfig('tag', { properties: { nope: 1 } }),
    paths: ['steps.tag'],
    message: /undeclared property/,
  },
  {
    name: 'contact_update with a value of the wrong type',
    change: setConfig('tag', { properties: { score: 'many' } }),
    paths: ['steps.tag'],
    message: /must be a number/,
  },
  {
    name: 'add_to_segment naming an unknown segment',
    change: setConfig('seg', { segment_id: TOPIC }),
    paths: ['steps.seg'],
    message: /no segment/,
  },
  {
    name: 'add_to_segment without segment_id',
    change: setConfig('seg', {}),
    paths: ['steps.seg'],
  },
  {
    name: 'topic_update naming an unknown topic',
    change: setConfig('topic', { topic_id: SEGMENT, subscription: 'opt_in' }),
    paths: ['steps.topic'],
    message: /no topic/,
  },
  {
    name: 'topic_update with a bad subscription',
    change: setConfig('topic', { topic_id: TOPIC, subscription: 'maybe' }),
    paths: ['steps.topic'],
    message: /opt_in/,
  },
  {
    name: 'problems on several steps: one entry each',
    change: (g) => {
      setConfig('seg', {})(g);
      setConfig('topic', {})(g);
      setConfig('wait', {})(g);
    },
    paths: ['steps.wait', 'steps.seg', 'steps.topic'],
  },
];

for (const c of cases)
  t.test(c.name, async (t) => {
    const g = valid();
    c.change(g);
    const errors = await errorsOf(g);
    t.same(errors.map((e) => e.path).sort(), [...c.paths].sort(), 'one entry per offending key');
    t.equal(new Set(errors.map((e) => e.path)).size, errors.length, 'no path twice');
    if (c.message) t.match(errors.find((e) => e.path === c.paths[0])?.message, c.message);
  });
