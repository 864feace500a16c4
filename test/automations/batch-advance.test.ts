import t, { type Test } from 'tap';
import { movableClock } from '../helpers/clock.js';
import { request, type HttpResponse } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/**
 * The run engine advances a claimed batch in one transaction (core/automations/runs/run-batch.ts):
 * the same effects as a run at a time (contact names and properties written, conditions met per
 * contact, one step row per step, contact.updated and automation.run.* events), a run whose
 * contact is gone fails alone inside the batch, and a step that refuses (a segment deleted) rolls
 * the batch back and the engine advances those runs one by one: the other runs still complete.
 */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const knex = app.runtime.db.knex;
const tick = () => app.runtime.services.automationRuns.tick(60_000);

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const created = (t: Test, res: HttpResponse) => {
  t.ok(res.status < 300, `setup ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body.id as string;
};
const count = async (query: ReturnType<typeof knex>) =>
  Number(((await query.count({ n: '*' }).first()) as { n: unknown }).n);

async function team(t: Test, name: string) {
  const team = await app.createTeam(name, 'unlimited');
  created(t, await call(team, 'POST', '/events', { name: 'user.signed_up' }));
  for (const key of ['plan', 'seen'])
    created(t, await call(team, 'POST', '/contact-properties', { key, type: 'string', fallback_value: '' }));
  return team;
}

async function contacts(t: Test, team: Team, n: number, prefix: string) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push(
      created(
        t,
        await call(team, 'POST', '/contacts', {
          email: `${prefix}${i}@batch.test`,
          first_name: 'Fresh',
          properties: { plan: i % 2 === 0 ? 'pro' : 'free' },
        }),
      ),
    );
  return ids;
}

async function sendAll(t: Test, team: Team, ids: string[]) {
  for (const id of ids) {
    const res = await call(team, 'POST', '/events/send', { event: 'user.signed_up', contact_id: id, payload: {} });
    t.equal(res.status, 202, 'event accepted');
  }
}

/** Ticks until no run of the automations is due (at most 20). */
async function settle() {
  for (let i = 0; i < 20; i++) {
    const result = await tick();
    if (result.enrolled === 0 && result.advanced === 0) return;
  }
}

const BRANCHING = {
  name: 'Branching',
  status: 'enabled',
  steps: [
    { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
    { key: 'rename', type: 'contact_update', config: { first_name: 'Batched', properties: { seen: 'yes' } } },
    {
      key: 'check',
      type: 'condition',
      config: { type: 'rule', field: 'properties.plan', operator: 'eq', value: 'pro' },
    },
    { key: 'pro', type: 'contact_update', config: { last_name: 'Pro' } },
    { key: 'free', type: 'contact_update', config: { last_name: 'Free', properties: { plan: null } } },
  ],
  connections: [
    { from: 'start', to: 'rename' },
    { from: 'rename', to: 'check' },
    { from: 'check', to: 'pro', type: 'condition_met' },
    { from: 'check', to: 'free', type: 'condition_not_met' },
  ],
};

t.test('a batch writes what runs one at a time wrote', async (t) => {
  const owner = await team(t, 'Batch');
  const automation = created(t, await call(owner, 'POST', '/automations', BRANCHING));
  const ids = await contacts(t, owner, 24, 'b');
  // One contact is erased before its run takes a step: its run fails alone.
  const gone = ids[5]!;
  await sendAll(t, owner, ids);
  // Enrolled first (erasure takes the contact's sent events with it), then erased.
  await app.runtime.services.automationRuns.enrol();
  t.equal((await call(owner, 'DELETE', `/contacts/${gone}`)).status, 200, 'contact erased');
  await settle();

  const runs = await knex('automation_runs').where({ automation_id: automation });
  t.equal(runs.length, 24, 'a run per event');
  const failed = runs.filter((r) => r.status === 'failed');
  t.same(
    failed.map((r) => [r.contact_id, r.error]),
    [[gone, 'the contact no longer exists']],
    'the run of the erased contact failed, alone',
  );
  t.equal(runs.filter((r) => r.status === 'completed').length, 23, 'every other run completed');
  const steps = await knex('automation_run_steps').whereIn(
    'run_id',
    runs.map((r) => r.id),
  );
  const byRun = new Map<string, string[]>();
  for (const s of steps) byRun.set(s.run_id, [...(byRun.get(s.run_id) ?? []), `${s.step_key}:${s.status}`]);
  for (const run of runs) {
    if (run.contact_id === gone) continue;
    const index = ids.indexOf(run.contact_id);
    const branch = index % 2 === 0 ? 'pro' : 'free';
    t.same(
      byRun.get(run.id)!.sort(),
      ['check:completed', `${branch}:completed`, 'rename:completed', 'start:completed'],
      `run ${index}: one row per step, on the ${branch} branch`,
    );
  }
  for (const [index, id] of ids.entries()) {
    if (id === gone) continue;
    const res = await call(owner, 'GET', `/contacts/${id}`);
    const pro = index % 2 === 0;
    t.match(
      res.body,
      {
        first_name: 'Batched',
        last_name: pro ? 'Pro' : 'Free',
        properties: pro ? { plan: 'pro', seen: 'yes' } : { seen: 'yes' },
      },
      `contact ${index}: names and properties written`,
    );
    if (!pro) t.notOk('plan' in res.body.properties, `contact ${index}: plan removed`);
  }
  t.equal(
    await count(knex('events').where({ team_id: owner.teamId, type: 'contact.updated' })),
    23 * 2,
    'contact.updated once per contact_update that changed a contact',
  );
  const completedEvents = await knex('events').where({ team_id: owner.teamId, type: 'automation.run.completed' });
  t.equal(completedEvents.length, 23, 'automation.run.completed once per completed run');
  t.equal(
    await count(knex('events').where({ team_id: owner.teamId, type: 'automation.run.failed' })),
    1,
    'automation.run.failed for the failed run',
  );
});

t.test('a step that refuses rolls its batch back; the runs then go one by one', async (t) => {
  const owner = await team(t, 'Refusals');
  const segment = created(t, await call(owner, 'POST', '/segments', { name: 'Doomed' }));
  const healthy = created(t, await call(owner, 'POST', '/automations', { ...BRANCHING, name: 'Healthy' }));
  const refusing = created(
    t,
    await call(owner, 'POST', '/automations', {
      name: 'Refusing',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
        { key: 'join', type: 'add_to_segment', config: { segment_id: segment } },
        { key: 'after', type: 'contact_update', config: { last_name: 'Joined' } },
      ],
      connections: [
        { from: 'start', to: 'join' },
        { from: 'join', to: 'after' },
      ],
    }),
  );
  const ids = await contacts(t, owner, 6, 'r');
  await sendAll(t, owner, ids);
  // Enrol first, then take the segment away: the `join` steps refuse when they run.
  await app.runtime.services.automationRuns.enrol();
  t.equal((await call(owner, 'DELETE', `/segments/${segment}`)).status, 200, 'segment deleted');
  const errors: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void errors.push(args.map(String).join(' '));
  try {
    await settle();
  } finally {
    console.error = original;
  }
  t.ok(
    errors.some((e) => e.includes('advancing them one by one')),
    'the batch fell back to one run at a time',
  );
  const healthyRuns = await knex('automation_runs').where({ automation_id: healthy });
  t.same(
    healthyRuns.map((r) => r.status),
    ids.map(() => 'completed'),
    'the healthy automation completed every run',
  );
  const refusingRuns = await knex('automation_runs').where({ automation_id: refusing });
  t.equal(refusingRuns.length, 6, 'a run per contact');
  t.ok(
    refusingRuns.every((r) => r.status === 'failed' && /segment/i.test(String(r.error))),
    'each refusing run failed with the refusal',
  );
  const names = await knex('contacts').whereIn('id', ids).pluck('last_name');
  t.ok(
    names.every((n: string) => n === 'Pro' || n === 'Free'),
    'no step after the refusal ran (the refusing runs never reached `after`)',
  );
});

t.test('two automations renaming one contact in the same wave: the later event shows both names', async (t) => {
  const owner = await team(t, 'Two automations');
  const single = (name: string, config: Record<string, unknown>) => ({
    name,
    status: 'enabled',
    steps: [
      { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
      { key: 'rename', type: 'contact_update', config },
    ],
    connections: [{ from: 'start', to: 'rename' }],
  });
  created(t, await call(owner, 'POST', '/automations', single('First names', { first_name: 'Ada' })));
  created(t, await call(owner, 'POST', '/automations', single('Last names', { last_name: 'Byron' })));
  const ids = await contacts(t, owner, 4, 'w');
  await sendAll(t, owner, ids);
  await settle();
  const events = (await knex('events')
    .where({ team_id: owner.teamId, type: 'contact.updated' })
    .select('data')) as Array<{ data: string | Record<string, unknown> }>;
  const data = events.map((e) => (typeof e.data === 'string' ? JSON.parse(e.data) : e.data) as Record<string, unknown>);
  for (const id of ids) {
    const mine = data.filter((d) => d.id === id);
    t.equal(mine.length, 2, 'one contact.updated per automation');
    t.ok(
      mine.some((d) => d.first_name === 'Ada' && d.last_name === 'Byron'),
      'the second update starts from the first one (no name shown reverted)',
    );
    t.match((await call(owner, 'GET', `/contacts/${id}`)).body, { first_name: 'Ada', last_name: 'Byron' });
  }
});
