import t, { type Test } from 'tap';
import { movableClock } from '../helpers/clock.js';
import { request, type HttpResponse } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';
import { markedVerifiedDomain } from '../helpers/verified-domain.js';

/**
 * The run engine at a thousand contacts (one event each: one run each, never two), and an
 * automation whose graph changes while runs are parked on a delay (each run finishes on the
 * version it started on; new runs take the new one).
 */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const knex = app.runtime.db.knex;
const tick = () => app.runtime.services.automationRuns.tick(60_000);
const DAY = 86_400_000;

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const created = (t: Test, res: HttpResponse) => {
  t.ok(res.status < 300, `setup ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body.id as string;
};
const count = async (query: ReturnType<typeof knex>) =>
  Number(((await query.count({ n: '*' }).first()) as { n: unknown }).n);

/** Runs `work` over `items`, `size` at a time; the answers in order. */
async function inBatches<T, R>(items: T[], size: number, work: (item: T, index: number) => Promise<R>) {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size)
    out.push(...(await Promise.all(items.slice(i, i + size).map((item, k) => work(item, i + k)))));
  return out;
}

const sendEvent = (team: Team, contactId: string) =>
  call(team, 'POST', '/events/send', { event: 'user.signed_up', contact_id: contactId, payload: {} });

let domains = 0;
async function sendingTeam(t: Test) {
  const team = await app.createTeam('Scale', 'unlimited');
  const domain = `scale${++domains}.example.com`;
  await markedVerifiedDomain(app, team.teamId, domain);
  created(t, await call(team, 'POST', '/events', { name: 'user.signed_up' }));
  return { team, domain };
}

t.test('1,000 contacts enrolled by one event each get exactly one run', async (t) => {
  const N = 1000;
  const { team } = await sendingTeam(t);
  const automation = created(
    t,
    await call(team, 'POST', '/automations', {
      name: 'Nurture',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
        { key: 'wait', type: 'delay', config: { duration: '1 day' } },
      ],
      connections: [{ from: 'start', to: 'wait' }],
    }),
  );
  const contacts = await inBatches(
    Array.from({ length: N }, (_, i) => i),
    50,
    async (i) => {
      const res = await call(team, 'POST', '/contacts', { email: `p${i}@scale.test` });
      if (res.status !== 201 && res.status !== 200) t.fail(`contact ${i}: ${res.status} ${res.text.slice(0, 200)}`);
      return res.body.id as string;
    },
  );
  t.equal(new Set(contacts).size, N, 'a thousand contacts');
  const statuses = await inBatches(contacts, 50, async (id) => (await sendEvent(team, id)).status);
  t.same(
    statuses.filter((s) => s !== 202),
    [],
    'every event accepted',
  );
  t.equal(await count(knex('custom_event_occurrences').where({ team_id: team.teamId })), N, 'one occurrence each');

  // Two workers at once, then on until every occurrence is processed.
  await Promise.all([tick(), tick()]);
  const deadline = Date.now() + 60_000;
  while (
    (await count(knex('custom_event_occurrences').where({ team_id: team.teamId }).whereNull('processed_at'))) > 0
  ) {
    if (Date.now() > deadline) throw new Error('enrolment did not finish');
    await tick();
  }

  const check = async (when: string) => {
    const runs = await knex('automation_runs').where({ automation_id: automation });
    t.equal(runs.length, N, `${when}: exactly ${N} runs`);
    t.equal(new Set(runs.map((r) => r.contact_id)).size, N, `${when}: one per contact`);
    t.same(new Set(runs.map((r) => r.contact_id)), new Set(contacts), `${when}: the contacts that got the event`);
    t.equal(new Set(runs.map((r) => r.occurrence_id)).size, N, `${when}: one per occurrence`);
    t.same(
      runs.filter((r) => r.status !== 'running' || r.next_step_key !== 'wait'),
      [],
      `${when}: every run parked on the delay`,
    );
    const steps = await knex('automation_run_steps')
      .whereIn('run_id', knex('automation_runs').where({ automation_id: automation }).select('id'))
      .select('run_id', 'step_key', 'status');
    const triggers = steps.filter((s) => s.step_key === 'start');
    t.equal(triggers.length, N, `${when}: a trigger step row per run`);
    t.equal(new Set(triggers.map((s) => s.run_id)).size, N, `${when}: on distinct runs`);
    t.ok(
      triggers.every((s) => s.status === 'completed'),
      `${when}: trigger rows completed`,
    );
    const waits = steps.filter((s) => s.step_key === 'wait');
    t.equal(waits.length, N, `${when}: a waiting delay row per run`);
    t.ok(
      waits.every((s) => s.status === 'waiting'),
      `${when}: delay rows waiting`,
    );
    t.equal(steps.length, 2 * N, `${when}: no other step rows`);
    t.equal(
      await count(knex('events').where({ team_id: team.teamId, type: 'automation.run.started' })),
      N,
      `${when}: started recorded once per run`,
    );
  };
  await check('after enrolment');

  // More ticks (nothing due: the delay is a day) create nothing.
  const again = await tick();
  t.match(again, { enrolled: 0, advanced: 0 });
  await Promise.all([tick(), tick()]);
  await check('after more ticks');

  const list = await call(team, 'GET', `/automations/${automation}/runs?limit=100&status=running`);
  t.equal(list.status, 200);
  t.equal(list.body.data.length, 100);
  t.equal(list.body.has_more, true);
});

t.test('a version change while runs are parked: each run keeps its own version', async (t) => {
  const { team, domain } = await sendingTeam(t);
  const template = async (name: string) => {
    const id = created(
      t,
      await call(team, 'POST', '/templates', {
        name,
        subject: `Template ${name}`,
        html: `<p>${name}</p>`,
        from: `Acme <hello@${domain}>`,
      }),
    );
    created(t, await call(team, 'POST', `/templates/${id}/publish`));
    return id;
  };
  const templateA = await template('A');
  const templateB = await template('B');
  const v1 = {
    steps: [
      { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
      { key: 'wait', type: 'delay', config: { duration: '2 days' } },
      { key: 'mail_a', type: 'send_email', config: { template: { id: templateA } } },
    ],
    connections: [
      { from: 'start', to: 'wait' },
      { from: 'wait', to: 'mail_a' },
    ],
  };
  const v2 = {
    steps: [
      { key: 'begin', type: 'trigger', config: { event_name: 'user.signed_up' } },
      { key: 'mail_b', type: 'send_email', config: { template: { id: templateB } } },
    ],
    connections: [{ from: 'begin', to: 'mail_b' }],
  };
  const automation = created(
    t,
    await call(team, 'POST', '/automations', { name: 'Versions', status: 'enabled', ...v1 }),
  );
  const contacts = await inBatches([0, 1, 2, 3], 4, async (i) =>
    created(t, await call(team, 'POST', '/contacts', { email: `v${i}@versions.test` })),
  );
  const early = contacts.slice(0, 3);
  const late = contacts[3]!;
  for (const id of early) t.equal((await sendEvent(team, id)).status, 202);
  await tick();
  const parked = await knex('automation_runs').where({ automation_id: automation });
  t.equal(parked.length, 3, 'three runs');
  t.same(
    parked.map((r) => [r.status, r.next_step_key]),
    parked.map(() => ['running', 'wait']),
    'parked on the delay',
  );
  const v1Id = parked[0].version_id as string;
  t.ok(
    parked.every((r) => r.version_id === v1Id),
    'pinned to one version',
  );

  const patched = await call(team, 'PATCH', `/automations/${automation}`, v2);
  t.equal(patched.status, 200, `PATCH ${patched.status} ${patched.text.slice(0, 300)}`);
  const shown = await call(team, 'GET', `/automations/${automation}`);
  t.equal(shown.status, 200);
  t.same(
    shown.body.steps.map((s: { key: string; type: string }) => [s.key, s.type]),
    [
      ['begin', 'trigger'],
      ['mail_b', 'send_email'],
    ],
    'the automation shows v2',
  );
  t.same(shown.body.connections, [{ from: 'begin', to: 'mail_b', type: 'default' }]);
  t.equal(shown.body.status, 'enabled');
  t.same(
    (await knex('automation_runs').where({ automation_id: automation })).map((r) => [r.status, r.version_id]),
    parked.map(() => ['running', v1Id]),
    'the parked runs are left running on v1',
  );

  // The fourth contact enrols on v2 and goes through at once.
  t.equal((await sendEvent(team, late)).status, 202);
  await tick();
  const lateRun = await knex('automation_runs').where({ automation_id: automation, contact_id: late }).first();
  t.ok(lateRun, 'the fourth contact has a run');
  t.not(lateRun.version_id, v1Id, 'on the new version');
  t.equal(lateRun.status, 'completed');
  let emails = await knex('emails').where({ team_id: team.teamId });
  t.equal(emails.length, 1, 'only the new run sent');
  t.match(emails[0], { template_id: templateB, subject: 'Template B' });
  t.same(JSON.parse(emails[0].to_addresses), ['v3@versions.test']);
  const lateDetail = await call(team, 'GET', `/automations/${automation}/runs/${lateRun.id}`);
  t.equal(lateDetail.status, 200);
  t.same(
    lateDetail.body.steps.map((s: { key: string; type: string; status: string }) => [s.key, s.type, s.status]),
    [
      ['begin', 'trigger', 'completed'],
      ['mail_b', 'send_email', 'completed'],
    ],
    'the new run’s steps are v2’s',
  );
  t.same(lateDetail.body.steps[1].output, { email_id: emails[0].id });
  for (const run of parked) {
    const detail = await call(team, 'GET', `/automations/${automation}/runs/${run.id}`);
    t.same(
      detail.body.steps.map((s: { key: string; status: string }) => [s.key, s.status]),
      [
        ['start', 'completed'],
        ['wait', 'waiting'],
        ['mail_a', 'pending'],
      ],
      'a parked run’s steps are still v1’s',
    );
  }

  // Two days on, the parked runs finish on v1: template A, none gets template B.
  clock.advanceTo(clock.now().getTime() + 2 * DAY + 1000);
  await tick();
  const runs = await knex('automation_runs').where({ automation_id: automation });
  t.same(
    runs.map((r) => r.status),
    runs.map(() => 'completed'),
    'every run completed',
  );
  t.equal(runs.length, 4, 'and no other run');
  emails = await knex('emails').where({ team_id: team.teamId });
  t.equal(emails.length, 4, 'one email per run');
  const byTo = new Map(emails.map((e) => [JSON.parse(e.to_addresses)[0] as string, e]));
  for (const i of [0, 1, 2])
    t.match(byTo.get(`v${i}@versions.test`), { template_id: templateA, subject: 'Template A' }, `v${i}: template A`);
  t.match(byTo.get('v3@versions.test'), { template_id: templateB });
  t.equal(emails.filter((e) => e.template_id === templateB).length, 1, 'template B went to the v2 run only');
  for (const run of parked) {
    const detail = await call(team, 'GET', `/automations/${automation}/runs/${run.id}`);
    t.equal(detail.status, 200);
    t.match(detail.body, { status: 'completed', contact_id: run.contact_id, error: null });
    t.same(
      detail.body.steps.map((s: { key: string; type: string; status: string }) => [s.key, s.type, s.status]),
      [
        ['start', 'trigger', 'completed'],
        ['wait', 'delay', 'completed'],
        ['mail_a', 'send_email', 'completed'],
      ],
      'a v1 run’s steps are v1’s',
    );
    const email = emails.find((e) => e.id === detail.body.steps[2].output?.email_id);
    t.ok(email, 'mail_a names its email');
    t.equal(email?.template_id, templateA);
  }
  const steps = await knex('automation_run_steps').whereIn(
    'run_id',
    parked.map((r) => r.id),
  );
  t.same(
    steps.map((s) => s.step_key).sort(),
    ['mail_a', 'mail_a', 'mail_a', 'start', 'start', 'start', 'wait', 'wait', 'wait'],
    'no v2 step row on a v1 run',
  );
  await tick();
  t.equal((await knex('emails').where({ team_id: team.teamId })).length, 4, 'ticking again sends nothing');
});
