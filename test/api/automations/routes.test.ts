import t, { type Test } from 'tap';
import { newId } from '../../../lib/ids.js';
import { errorShape, request, type HttpResponse } from '../../helpers/http.js';
import { declared } from '../../helpers/declared-schema.js';
import { startTestApp } from '../../helpers/test-app.js';

const app = await startTestApp();
t.teardown(() => app.close());

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });

const simple = (event = 'svc:contact.created') => ({
  steps: [
    { key: 'start', type: 'trigger', config: { event_name: event } },
    { key: 'wait', type: 'delay', config: { duration: '1 day' } },
  ],
  connections: [{ from: 'start', to: 'wait' }],
});

/** A team holding one of everything a graph can name. */
async function furnished(t: Test) {
  const team = await app.createTeam();
  const ok = (res: HttpResponse) => {
    t.ok(res.status < 300, `setup ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    return res.body.id as string;
  };
  ok(await call(team, 'POST', '/events', { name: 'user.signed_up' }));
  const template = ok(await call(team, 'POST', '/templates', { name: 'welcome', html: '<p>hi</p>', subject: 'Hi' }));
  ok(await call(team, 'POST', `/templates/${template}/publish`));
  const draft = ok(await call(team, 'POST', '/templates', { name: 'draft', html: '<p>x</p>' }));
  const segment = ok(await call(team, 'POST', '/segments', { name: 'vip', filter: null }));
  const topic = ok(await call(team, 'POST', '/topics', { name: 'news', default_subscription: 'opt_in' }));
  ok(await call(team, 'POST', '/contact-properties', { key: 'plan', type: 'string' }));
  return { team, template, draft, segment, topic };
}

type Graph = {
  name: string;
  steps: { key: string; type: string; config: Record<string, unknown> }[];
  connections: { from: string; to: string; type?: string }[];
};
const welcomeFlow = (r: { template: string; segment: string; topic: string }): Graph => ({
  name: 'Welcome',
  steps: [
    { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
    { key: 'wait', type: 'delay', config: { duration: '2 days' } },
    {
      key: 'check',
      type: 'condition',
      config: { type: 'rule', field: 'properties.plan', operator: 'eq', value: 'pro' },
    },
    { key: 'mail', type: 'send_email', config: { template: { id: r.template, variables: { x: 1 } } } },
    { key: 'tag', type: 'contact_update', config: { properties: { plan: 'lead' } } },
    { key: 'seg', type: 'add_to_segment', config: { segment_id: r.segment } },
    { key: 'topic', type: 'topic_update', config: { topic_id: r.topic, subscription: 'opt_in' } },
  ],
  connections: [
    { from: 'start', to: 'wait' },
    { from: 'wait', to: 'check' },
    { from: 'check', to: 'mail', type: 'condition_met' },
    { from: 'check', to: 'tag', type: 'condition_not_met' },
    { from: 'mail', to: 'seg' },
    { from: 'tag', to: 'topic' },
  ],
});

t.test('create, retrieve with the graph, list without it', async (t) => {
  const r = await furnished(t);
  const body = welcomeFlow(r);
  const created = await call(r.team, 'POST', '/automations', body);
  t.equal(created.status, 201, JSON.stringify(created.body));
  t.same(created.body, { object: 'automation', id: created.body.id });
  declared(t, 'POST', '/automations', created);
  const id = created.body.id as string;

  const got = await call(r.team, 'GET', `/automations/${id}`);
  t.equal(got.status, 200);
  declared(t, 'GET', '/automations/:automation_id', got);
  t.same(Object.keys(got.body).sort(), [
    'connections',
    'created_at',
    'id',
    'name',
    'object',
    'status',
    'steps',
    'updated_at',
  ]);
  t.match(got.body, { object: 'automation', id, name: 'Welcome', status: 'disabled', updated_at: null });
  t.same(got.body.steps, body.steps);
  t.same(
    got.body.connections,
    body.connections.map((c) => ({ type: 'default', ...c })),
    'connection types filled in',
  );
  t.same((await call(r.team, 'GET', `/automations/${id.toUpperCase()}`)).body, got.body, 'upper-case id');

  const enabled = await call(r.team, 'POST', '/automations', { ...simple(), name: 'On', status: 'enabled' });
  t.equal(enabled.status, 201);
  const list = await call(r.team, 'GET', '/automations');
  t.equal(list.status, 200);
  declared(t, 'GET', '/automations', list);
  t.equal(list.body.has_more, false);
  t.same(
    list.body.data.map((a: { name: string }) => a.name),
    ['On', 'Welcome'],
    'newest first',
  );
  t.same(Object.keys(list.body.data[0]).sort(), ['created_at', 'id', 'name', 'status', 'updated_at'], 'no graph');
  t.same(
    (await call(r.team, 'GET', '/automations?status=enabled')).body.data.map((a: { name: string }) => a.name),
    ['On'],
  );
  t.same(
    (await call(r.team, 'GET', '/automations?status=disabled')).body.data.map((a: { name: string }) => a.name),
    ['Welcome'],
  );
  t.same(
    (await call(r.team, 'GET', '/automations?search=welc')).body.data.map((a: { name: string }) => a.name),
    ['Welcome'],
    'search in the name, any case',
  );
  const page = await call(r.team, 'GET', '/automations?limit=1');
  t.equal(page.body.has_more, true);
  const next = await call(r.team, 'GET', `/automations?limit=1&after=${page.body.data[0].id}`);
  t.same(
    next.body.data.map((a: { name: string }) => a.name),
    ['Welcome'],
  );
  t.equal(next.body.has_more, false);
  const back = await call(r.team, 'GET', `/automations?limit=1&before=${next.body.data[0].id}`);
  t.same(
    back.body.data.map((a: { name: string }) => a.name),
    ['On'],
  );
});

t.test('list refusals: status, search, pagination', async (t) => {
  const team = await app.createTeam();
  errorShape(t, await call(team, 'GET', '/automations?status=paused'), 422, 'invalid_parameter');
  errorShape(t, await call(team, 'GET', '/automations?search=%20%20'), 422, 'invalid_parameter');
  errorShape(t, await call(team, 'GET', `/automations?search=${'a'.repeat(201)}`), 422, 'invalid_parameter');
  t.equal((await call(team, 'GET', `/automations?search=${'a'.repeat(200)}`)).status, 200);
  errorShape(t, await call(team, 'GET', '/automations?limit=0'), 422, 'invalid_parameter');
  errorShape(t, await call(team, 'GET', '/automations?limit=101'), 422, 'invalid_parameter');
  errorShape(t, await call(team, 'GET', `/automations?after=${newId()}&before=${newId()}`), 422, 'invalid_parameter');
  errorShape(t, await call(team, 'GET', '/automations?color=red'), 422, 'invalid_parameter');
});

t.test('create refusals', async (t) => {
  const r = await furnished(t);
  const missing = errorShape(
    t,
    await call(r.team, 'POST', '/automations', { steps: [], connections: [] }),
    422,
    'missing_required_field',
  );
  t.match(missing.errors, [{ path: 'name' }]);
  errorShape(
    t,
    await call(r.team, 'POST', '/automations', { name: 'x', connections: [] }),
    422,
    'missing_required_field',
  );
  errorShape(t, await call(r.team, 'POST', '/automations', { name: 'x', steps: [] }), 422, 'missing_required_field');
  errorShape(
    t,
    await call(r.team, 'POST', '/automations', { name: 'x', steps: 'no', connections: [] }),
    400,
    'validation_error',
  );
  errorShape(
    t,
    await call(r.team, 'POST', '/automations', { ...simple(), name: 'x', status: 'paused' }),
    400,
    'validation_error',
  );
  errorShape(t, await call(r.team, 'POST', '/automations', { ...simple(), name: '' }), 400, 'validation_error');
  errorShape(
    t,
    await call(r.team, 'POST', '/automations', { ...simple(), name: 'x'.repeat(201) }),
    400,
    'validation_error',
  );

  const tooMany = {
    name: 'big',
    steps: [
      { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
      ...Array.from({ length: 150 }, (_, i) => ({ key: `d${i}`, type: 'delay', config: { duration: '1 hour' } })),
    ],
    connections: Array.from({ length: 150 }, (_, i) => ({ from: i === 0 ? 'start' : `d${i - 1}`, to: `d${i}` })),
  };
  const big = errorShape(t, await call(r.team, 'POST', '/automations', tooMany), 422, 'validation_error');
  t.same(big.errors, [{ path: 'steps', message: 'a graph has at most 150 steps (151 given)' }]);
  tooMany.steps.pop();
  tooMany.connections.pop();
  t.equal((await call(r.team, 'POST', '/automations', tooMany)).status, 201, '150 steps are fine');

  // Every reference checked against this team, one entry per offending key.
  const bad = welcomeFlow(r);
  bad.steps[0] = { key: 'start', type: 'trigger', config: { event_name: 'order.placed' } };
  bad.steps[3] = { key: 'mail', type: 'send_email', config: { template: { id: r.draft, variables: {} } } };
  bad.steps[4] = { key: 'tag', type: 'contact_update', config: { properties: { nope: 'x' } } };
  bad.steps[5] = { key: 'seg', type: 'add_to_segment', config: { segment_id: newId() } };
  bad.steps[6] = { key: 'topic', type: 'topic_update', config: { topic_id: newId(), subscription: 'opt_in' } };
  bad.steps.push({ key: 'gone', type: 'wait_for_event', config: { event_name: 'x' } });
  bad.connections.push({ from: 'seg', to: 'gone', type: 'timeout' });
  const refused = errorShape(t, await call(r.team, 'POST', '/automations', bad), 422, 'validation_error');
  t.same(refused.errors!.map((e) => e.path).sort(), [
    'connections.6',
    'steps.gone',
    'steps.mail',
    'steps.seg',
    'steps.start',
    'steps.tag',
    'steps.topic',
  ]);
  t.match(refused.errors!.find((e) => e.path === 'steps.mail')!.message, /not published/);
  t.equal((await call(r.team, 'GET', '/automations')).body.data.length, 1, 'a refusal creates nothing');

  // Another team's template, segment and event are unknown here.
  const other = await app.createTeam();
  const foreign = errorShape(t, await call(other, 'POST', '/automations', welcomeFlow(r)), 422, 'validation_error');
  t.same(foreign.errors!.map((e) => e.path).sort(), [
    'steps.check',
    'steps.mail',
    'steps.seg',
    'steps.start',
    'steps.tag',
    'steps.topic',
  ]);
});

t.test('PATCH: name and status in place; steps with connections publish a new version', async (t) => {
  const r = await furnished(t);
  const id = (await call(r.team, 'POST', '/automations', { ...simple('user.signed_up'), name: 'Flow' })).body.id;
  const versions = () => app.runtime.services.automations.versions(id);
  const [v1] = await versions();
  t.equal(v1!.number, 1);

  const renamed = await call(r.team, 'PATCH', `/automations/${id}`, { name: 'Flow 2', status: 'enabled' });
  t.equal(renamed.status, 200);
  t.same(renamed.body, { object: 'automation', id });
  declared(t, 'PATCH', '/automations/:automation_id', renamed);
  const after = (await call(r.team, 'GET', `/automations/${id}`)).body;
  t.match(after, { name: 'Flow 2', status: 'enabled', updated_at: String });
  t.equal((await versions()).length, 1, 'no new version without a graph');

  const graph = welcomeFlow(r);
  const published = await call(r.team, 'PATCH', `/automations/${id}`, {
    steps: graph.steps,
    connections: graph.connections,
  });
  t.equal(published.status, 200, JSON.stringify(published.body));
  const all = await versions();
  t.same(
    all.map((v) => v.number),
    [1, 2],
  );
  t.same(all[0], v1, 'version 1 unchanged');
  const shown = (await call(r.team, 'GET', `/automations/${id}`)).body;
  t.same(
    shown.steps.map((s: { key: string }) => s.key),
    graph.steps.map((s) => s.key),
    'GET shows version 2',
  );
  t.equal(shown.status, 'enabled', 'status kept');
  t.equal(shown.name, 'Flow 2');

  errorShape(
    t,
    await call(r.team, 'PATCH', `/automations/${id}`, { steps: graph.steps }),
    422,
    'missing_required_field',
  );
  errorShape(
    t,
    await call(r.team, 'PATCH', `/automations/${id}`, { connections: graph.connections }),
    422,
    'missing_required_field',
  );
  errorShape(t, await call(r.team, 'PATCH', `/automations/${id}`, {}), 422, 'validation_error');
  errorShape(t, await call(r.team, 'PATCH', `/automations/${id}`, { status: 'paused' }), 400, 'validation_error');
  const invalid = errorShape(
    t,
    await call(r.team, 'PATCH', `/automations/${id}`, { steps: [graph.steps[1]], connections: [] }),
    422,
    'validation_error',
  );
  t.same(invalid.errors, [{ path: 'steps', message: 'a graph needs exactly one trigger step (none given)' }]);
  t.equal((await versions()).length, 2, 'a refused graph publishes nothing');
  errorShape(t, await call(r.team, 'PATCH', `/automations/${newId()}`, { name: 'x' }), 404, 'not_found');
});

t.test('stop disables and calls the run-cancelling seam; delete is 404 afterwards', async (t) => {
  const team = await app.createTeam();
  const id = (await call(team, 'POST', '/automations', { ...simple(), name: 'S', status: 'enabled' })).body.id;
  const deps = (app.runtime.services.automations as unknown as { deps: { cancelLiveRuns: unknown } }).deps;
  const original = deps.cancelLiveRuns;
  const cancelled: string[] = [];
  deps.cancelLiveRuns = async (trx: { isTransaction?: boolean }, automationId: string) => {
    t.ok(trx.isTransaction, 'inside the transaction');
    cancelled.push(automationId);
  };
  t.teardown(() => {
    deps.cancelLiveRuns = original;
  });
  const stopped = await call(team, 'POST', `/automations/${id}/stop`);
  t.equal(stopped.status, 200);
  t.same(stopped.body, { object: 'automation', id, status: 'disabled' });
  declared(t, 'POST', '/automations/:automation_id/stop', stopped);
  t.equal((await call(team, 'GET', `/automations/${id}`)).body.status, 'disabled');
  t.equal((await call(team, 'POST', `/automations/${id}/stop`)).status, 200, 'stopping a disabled one is fine');

  const removed = await call(team, 'DELETE', `/automations/${id}`);
  t.equal(removed.status, 200);
  t.same(removed.body, { object: 'automation', id, deleted: true });
  declared(t, 'DELETE', '/automations/:automation_id', removed);
  t.same(cancelled, [id, id, id]);
  for (const [method, path] of [
    ['GET', `/automations/${id}`],
    ['PATCH', `/automations/${id}`],
    ['DELETE', `/automations/${id}`],
    ['POST', `/automations/${id}/stop`],
    ['POST', `/automations/${id}/duplicate`],
  ] as const)
    errorShape(t, await call(team, method, path, method === 'PATCH' ? { name: 'x' } : undefined), 404, 'not_found');
  t.same((await call(team, 'GET', '/automations')).body.data, [], 'not listed');
  t.equal((await app.runtime.services.automations.versions(id)).length, 1, 'versions kept for runs that pinned them');
  errorShape(t, await call(team, 'GET', '/automations/not-an-id'), 404, 'not_found');
});

t.test('duplicate: a disabled copy with the active graph as version 1', async (t) => {
  const r = await furnished(t);
  const id = (
    await call(r.team, 'POST', '/automations', { ...simple('user.signed_up'), name: 'Orig', status: 'enabled' })
  ).body.id;
  const graph = welcomeFlow(r);
  await call(r.team, 'PATCH', `/automations/${id}`, { steps: graph.steps, connections: graph.connections });
  const copy = await call(r.team, 'POST', `/automations/${id}/duplicate`);
  t.equal(copy.status, 201);
  declared(t, 'POST', '/automations/:automation_id/duplicate', copy);
  t.not(copy.body.id, id);
  const original = (await call(r.team, 'GET', `/automations/${id}`)).body;
  const got = (await call(r.team, 'GET', `/automations/${copy.body.id}`)).body;
  t.match(got, { name: 'Orig (copy)', status: 'disabled' });
  t.same(got.steps, original.steps);
  t.same(got.connections, original.connections);
  const versions = await app.runtime.services.automations.versions(copy.body.id);
  t.same(
    versions.map((v) => v.number),
    [1],
  );
});

t.test('property usage: an active version naming a property', async (t) => {
  const r = await furnished(t);
  const usage = (key: string) => app.runtime.services.automations.usingProperty(r.team.teamId, key);
  t.same(await usage('plan'), []);
  const id = (await call(r.team, 'POST', '/automations', welcomeFlow(r))).body.id;
  t.same(await usage('PLAN'), [`automation "Welcome" (${id})`]);
  await call(r.team, 'PATCH', `/automations/${id}`, simple());
  t.same(await usage('plan'), [], 'only the active version counts');
});

t.test('credentials: writes need full_access; reads take either key', async (t) => {
  const team = await app.createTeam();
  const id = (await call(team, 'POST', '/automations', { ...simple(), name: 'K' })).body.id;
  const sending = await app.runtime.services.apiKeys.create(team.teamId, {
    name: 'sending',
    permission: 'sending_access',
  });
  const restricted = { teamId: team.teamId, token: sending.token };
  t.equal((await call(restricted, 'GET', '/automations')).status, 200);
  t.equal((await call(restricted, 'GET', `/automations/${id}`)).status, 200);
  errorShape(t, await call(restricted, 'POST', '/automations', { ...simple(), name: 'x' }), 401, 'restricted_api_key');
  errorShape(t, await call(restricted, 'PATCH', `/automations/${id}`, { name: 'x' }), 401, 'restricted_api_key');
  errorShape(t, await call(restricted, 'POST', `/automations/${id}/stop`), 401, 'restricted_api_key');
  errorShape(t, await call(restricted, 'POST', `/automations/${id}/duplicate`), 401, 'restricted_api_key');
  errorShape(t, await call(restricted, 'DELETE', `/automations/${id}`), 401, 'restricted_api_key');
  errorShape(t, await request(app.url, '/automations'), 401, 'missing_api_key');

  const other = await app.createTeam();
  errorShape(t, await call(other, 'GET', `/automations/${id}`), 404, 'not_found');
  t.same((await call(other, 'GET', '/automations')).body.data, []);
});

t.test('a property an automation names cannot be deleted until the automation stops naming it', async (t) => {
  const refs = await furnished(t);
  const created = await call(refs.team, 'POST', '/automations', welcomeFlow(refs));
  t.equal(created.status, 201, created.text);
  const refused = await call(refs.team, 'DELETE', '/contact-properties/plan');
  errorShape(t, refused, 409, 'resource_locked');
  t.match(refused.body.message, /automation "Welcome"/);
  t.equal((await call(refs.team, 'DELETE', `/automations/${created.body.id}`)).status, 200);
  t.equal(
    (await call(refs.team, 'DELETE', '/contact-properties/plan')).status,
    200,
    'free once the automation is gone',
  );
});
