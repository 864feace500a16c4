import t, { type Test } from 'tap';
import { movableClock } from '../../helpers/clock.js';
import { errorShape, request, type HttpResponse } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { markedVerifiedDomain } from '../../helpers/verified-domain.js';

const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const knex = app.runtime.db.knex;
const tick = () => app.runtime.services.automationRuns.tick(60_000);
const DAY = 86_400_000;

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const ok = (t: Test, res: HttpResponse) => {
  t.ok(res.status < 300, `setup ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body.id as string;
};

let domains = 0;
/** A team that can send (verified domain), with the event user.signed_up, a published template and a contact. */
async function sendingTeam(t: Test) {
  const team = await app.createTeam('Runs', 'unlimited');
  const domain = `runs${++domains}.example.com`;
  await markedVerifiedDomain(app, team.teamId, domain);
  ok(t, await call(team, 'POST', '/events', { name: 'user.signed_up' }));
  const template = ok(
    t,
    await call(team, 'POST', '/templates', {
      name: 'welcome',
      subject: 'Welcome {{NAME}}',
      html: '<p>Hi {{NAME}}</p>',
      from: `Acme <hello@${domain}>`,
      variables: [{ key: 'NAME', type: 'string', fallback_value: 'friend' }],
    }),
  );
  ok(t, await call(team, 'POST', `/templates/${template}/publish`));
  const ada = ok(t, await call(team, 'POST', '/contacts', { email: 'ada@example.com', first_name: 'Ada' }));
  return { team, template, ada, domain };
}

const welcome = (template: string) => ({
  name: 'Welcome',
  status: 'enabled',
  steps: [
    { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
    { key: 'wait', type: 'delay', config: { duration: '2 days' } },
    { key: 'mail', type: 'send_email', config: { template: { id: template, variables: { NAME: 'Ada' } } } },
  ],
  connections: [
    { from: 'start', to: 'wait' },
    { from: 'wait', to: 'mail' },
  ],
});

const send = (team: Team, contactId: string) =>
  call(team, 'POST', '/events/send', { event: 'user.signed_up', contact_id: contactId, payload: {} });

t.test('a welcome flow: enrolled, parked on the delay, then the email after two days, completed', async (t) => {
  const { team, template, ada } = await sendingTeam(t);
  const automation = ok(t, await call(team, 'POST', '/automations', welcome(template)));
  t.equal((await send(team, ada)).status, 202);
  await tick();

  let list = await call(team, 'GET', `/automations/${automation}/runs`);
  t.equal(list.status, 200);
  t.equal(list.body.object, 'list');
  t.equal(list.body.data.length, 1);
  const runId = list.body.data[0].id as string;
  t.match(list.body.data[0], { id: runId, status: 'running', completed_at: null });
  t.same(Object.keys(list.body.data[0]).sort(), ['completed_at', 'created_at', 'id', 'started_at', 'status']);
  const parked = await knex('automation_runs').where({ id: runId }).first();
  t.equal(parked.next_step_key, 'wait', 'parked on the delay');
  t.equal(parked.lease_owner, null, 'a parked run holds no lease');
  let run = await call(team, 'GET', `/automations/${automation}/runs/${runId}`);
  t.same(
    run.body.steps.map((s: { key: string; status: string }) => [s.key, s.status]),
    [
      ['start', 'completed'],
      ['wait', 'waiting'],
      ['mail', 'pending'],
    ],
  );
  t.equal(
    await knex('emails')
      .where({ team_id: team.teamId })
      .count({ n: '*' })
      .first()
      .then((r) => Number(r!.n)),
    0,
  );

  await tick();
  t.equal((await knex('automation_runs').where({ id: runId }).first()).next_step_key, 'wait', 'not due yet');

  clock.advanceTo(clock.now().getTime() + 2 * DAY + 1000);
  await tick();
  const emails = await knex('emails').where({ team_id: team.teamId });
  t.equal(emails.length, 1, 'one email sent');
  t.match(emails[0], { subject: 'Welcome Ada' });
  run = await call(team, 'GET', `/automations/${automation}/runs/${runId}`);
  t.equal(run.status, 200);
  t.match(run.body, { object: 'automation_run', id: runId, status: 'completed', contact_id: ada, error: null });
  t.type(run.body.completed_at, 'string');
  t.same(
    run.body.steps.map((s: { key: string; type: string; status: string }) => [s.key, s.type, s.status]),
    [
      ['start', 'trigger', 'completed'],
      ['wait', 'delay', 'completed'],
      ['mail', 'send_email', 'completed'],
    ],
  );
  t.same(run.body.steps[2].output, { email_id: emails[0].id });
  t.same(Object.keys(run.body.steps[0]).sort(), [
    'completed_at',
    'created_at',
    'error',
    'key',
    'output',
    'started_at',
    'status',
    'type',
  ]);
  const fetched = await call(team, 'GET', `/emails/${emails[0].id}`);
  t.equal(fetched.status, 200, 'the email is an ordinary email');

  // Ticking again changes nothing: the step is recorded, nothing is sent twice.
  await tick();
  t.equal((await knex('emails').where({ team_id: team.teamId })).length, 1);
  const types = (await knex('events').where({ team_id: team.teamId }).orderBy('id')).map((e) => e.type);
  t.ok(types.includes('automation.run.started'));
  t.ok(types.includes('automation.run.completed'));
  const started = await knex('events').where({ team_id: team.teamId, type: 'automation.run.started' }).first();
  t.match(JSON.parse(started.data), {
    object: 'automation_run',
    id: runId,
    automation_id: automation,
    contact_id: ada,
  });
  list = await call(team, 'GET', `/automations/${automation}/runs?status=completed,failed`);
  t.equal(list.body.data.length, 1);
  list = await call(team, 'GET', `/automations/${automation}/runs?status=running`);
  t.equal(list.body.data.length, 0);
});

t.test('a condition branches both ways', async (t) => {
  const { team, ada } = await sendingTeam(t);
  const bob = ok(t, await call(team, 'POST', '/contacts', { email: 'bob@example.com', first_name: 'Bob' }));
  const automation = ok(
    t,
    await call(team, 'POST', '/automations', {
      name: 'Branch',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
        {
          key: 'check',
          type: 'condition',
          config: { type: 'rule', field: 'first_name', operator: 'eq', value: 'Ada' },
        },
        { key: 'yes', type: 'contact_update', config: { last_name: 'Met' } },
        { key: 'no', type: 'contact_update', config: { last_name: 'NotMet' } },
      ],
      connections: [
        { from: 'start', to: 'check' },
        { from: 'check', to: 'yes', type: 'condition_met' },
        { from: 'check', to: 'no', type: 'condition_not_met' },
      ],
    }),
  );
  await send(team, ada);
  await send(team, bob);
  await tick();
  t.equal((await call(team, 'GET', `/contacts/${ada}`)).body.last_name, 'Met');
  t.equal((await call(team, 'GET', `/contacts/${bob}`)).body.last_name, 'NotMet');
  const list = await call(team, 'GET', `/automations/${automation}/runs`);
  t.same(
    list.body.data.map((r: { status: string }) => r.status),
    ['completed', 'completed'],
  );
  const adaRun = (await knex('automation_runs').where({ automation_id: automation, contact_id: ada }).first()).id;
  const run = await call(team, 'GET', `/automations/${automation}/runs/${adaRun}`);
  t.same(
    run.body.steps.map((s: { key: string; status: string }) => [s.key, s.status]),
    [
      ['start', 'completed'],
      ['check', 'completed'],
      ['yes', 'completed'],
      ['no', 'skipped'],
    ],
    'graph order: condition_met before condition_not_met',
  );
});

t.test('two sends are two runs; one occurrence processed twice is still one run', async (t) => {
  const { team, template, ada } = await sendingTeam(t);
  const automation = ok(t, await call(team, 'POST', '/automations', welcome(template)));
  await send(team, ada);
  await send(team, ada);
  await tick();
  t.equal((await knex('automation_runs').where({ automation_id: automation })).length, 2);
  // A redelivery: the occurrence is unprocessed again (as if the commit had been lost).
  const occurrence = await knex('custom_event_occurrences').where({ team_id: team.teamId }).first();
  await knex('custom_event_occurrences').where({ id: occurrence.id }).update({ processed_at: null });
  await tick();
  t.equal((await knex('automation_runs').where({ automation_id: automation })).length, 2, 'still two runs');
  t.equal(
    (await knex('events').where({ team_id: team.teamId, type: 'automation.run.started' })).length,
    2,
    'started recorded once per run',
  );
});

t.test('a disabled automation enrols nobody; stop cancels live runs', async (t) => {
  const { team, template, ada } = await sendingTeam(t);
  const disabled = ok(t, await call(team, 'POST', '/automations', { ...welcome(template), status: 'disabled' }));
  const automation = ok(t, await call(team, 'POST', '/automations', welcome(template)));
  await send(team, ada);
  await tick();
  t.equal((await knex('automation_runs').where({ automation_id: disabled })).length, 0);
  t.equal((await call(team, 'POST', `/automations/${automation}/stop`)).status, 200);
  const list = await call(team, 'GET', `/automations/${automation}/runs?status=cancelled`);
  t.equal(list.body.data.length, 1);
  t.equal(list.body.data[0].status, 'cancelled');
  t.type(list.body.data[0].completed_at, 'string');
  clock.advanceTo(clock.now().getTime() + 3 * DAY);
  await tick();
  t.equal((await knex('emails').where({ team_id: team.teamId })).length, 0, 'a cancelled run sends nothing');
});

t.test('a run whose contact is gone, or whose template is gone, fails', async (t) => {
  const { team, template, ada } = await sendingTeam(t);
  const automation = ok(t, await call(team, 'POST', '/automations', welcome(template)));
  const bob = ok(t, await call(team, 'POST', '/contacts', { email: 'bob@example.com' }));
  await send(team, ada);
  await send(team, bob);
  await tick();
  t.equal((await call(team, 'DELETE', `/contacts/${bob}`)).status, 200);
  t.equal((await call(team, 'DELETE', `/templates/${template}`)).status, 200);
  clock.advanceTo(clock.now().getTime() + 2 * DAY + 1000);
  await tick();
  const runs = await knex('automation_runs').where({ automation_id: automation });
  t.same(
    runs.map((r) => r.status),
    ['failed', 'failed'],
  );
  t.ok(runs.every((r) => typeof r.error === 'string' && r.error.length > 0));
  const bobRun = runs.find((r) => r.contact_id === bob);
  t.match(bobRun.error, /contact/);
  const failed = await knex('events').where({ team_id: team.teamId, type: 'automation.run.failed' });
  t.equal(failed.length, 2);
  t.equal((await knex('emails').where({ team_id: team.teamId })).length, 0);
});

t.test('the status filter refuses a member outside the run statuses; unknown ids are 404', async (t) => {
  const { team, template } = await sendingTeam(t);
  const automation = ok(t, await call(team, 'POST', '/automations', welcome(template)));
  const refused = await call(team, 'GET', `/automations/${automation}/runs?status=running,paused`);
  const body = errorShape(t, refused, 422, 'invalid_parameter');
  t.match(body.message, /paused/);
  t.equal((await call(team, 'GET', `/automations/${automation}/runs/not-a-run`)).status, 404);
  t.equal(
    (await call(team, 'GET', `/automations/${automation}/runs/01900000-0000-7000-8000-000000000001`)).status,
    404,
  );
});

t.test('runs are the team’s own', async (t) => {
  const { team, template, ada } = await sendingTeam(t);
  const other = await app.createTeam('Other');
  const automation = ok(t, await call(team, 'POST', '/automations', welcome(template)));
  await send(team, ada);
  await tick();
  const runId = (await knex('automation_runs').where({ automation_id: automation }).first()).id;
  t.equal((await call(other, 'GET', `/automations/${automation}/runs`)).status, 404);
  t.equal((await call(other, 'GET', `/automations/${automation}/runs/${runId}`)).status, 404);
  const otherAutomation = ok(
    t,
    await call(other, 'POST', '/automations', {
      ...welcome(template),
      status: 'disabled',
      steps: [{ key: 'start', type: 'trigger', config: { event_name: 'svc:contact.created' } }],
      connections: [],
    }),
  );
  t.equal(
    (await call(other, 'GET', `/automations/${otherAutomation}/runs/${runId}`)).status,
    404,
    'a run under another automation',
  );
});

t.test('a send step retried after its email committed sends nothing again', async (t) => {
  const { team, template, ada } = await sendingTeam(t);
  const automation = ok(t, await call(team, 'POST', '/automations', welcome(template)));
  await send(team, ada);
  await tick();
  clock.advanceTo(clock.now().getTime() + 2 * DAY + 1000);
  await tick();
  t.equal((await knex('emails').where({ team_id: team.teamId })).length, 1);
  // As if the worker died after the email's commit and the run came due on the send again.
  const run = await knex('automation_runs').where({ automation_id: automation }).first();
  await knex('automation_runs')
    .where({ id: run.id })
    .update({ status: 'running', next_step_key: 'mail', wake_at: clock.now(), ended_at: null });
  await tick();
  t.equal((await knex('emails').where({ team_id: team.teamId })).length, 1, 'still one email');
  t.equal((await knex('automation_runs').where({ id: run.id }).first()).status, 'completed');
});

t.test('the scheduler job ticks the engine', async (t) => {
  const { jobs } = await import('../../../scheduler/jobs/index.js');
  const job = jobs.find((j) => j.name === 'advance-automations');
  t.ok(job, 'registered');
  t.match(await job!.run(app.runtime.services), { enrolled: Number, advanced: Number });
});

t.test('two workers ticking at once: each run advances once, one email per run', async (t) => {
  const { team, template, ada } = await sendingTeam(t);
  const flow = welcome(template);
  const automation = ok(
    t,
    await call(team, 'POST', '/automations', {
      ...flow,
      steps: [flow.steps[0], flow.steps[2]],
      connections: [{ from: 'start', to: 'mail' }],
    }),
  );
  const contacts = [ada];
  for (let i = 0; i < 4; i++)
    contacts.push(ok(t, await call(team, 'POST', '/contacts', { email: `c${i}@example.com` })));
  for (const id of contacts) await send(team, id);
  await Promise.all([tick(), tick(), tick()]);
  await tick();
  t.equal((await knex('emails').where({ team_id: team.teamId })).length, contacts.length);
  const runs = await knex('automation_runs').where({ automation_id: automation });
  t.same(
    runs.map((r) => r.status),
    contacts.map(() => 'completed'),
  );
});

t.test('a worker whose claim ran out and was taken commits nothing (no step twice)', async (t) => {
  const { RunTransitions, stepDone } = await import('../../../core/automations/runs/run-transitions.js');
  const { AutomationRunRepository } = await import('../../../core/automations/runs/automation-run.repository.js');
  const { team, template, ada } = await sendingTeam(t);
  const automation = ok(t, await call(team, 'POST', '/automations', welcome(template)));
  await send(team, ada);
  await app.runtime.services.automationRuns.enrol();
  const repository = new AutomationRunRepository(knex);
  const [claimed] = await repository.claimDue('worker-a', clock.now(), new Date(clock.now().getTime() + 1000), 10);
  t.equal(claimed?.leaseOwner, 'worker-a', 'worker A holds the run');
  // A's claim runs out; worker B takes the run.
  const later = new Date(clock.now().getTime() + 5000);
  const [taken] = await repository.claimDue('worker-b', later, new Date(later.getTime() + 1000), 10);
  t.equal(taken?.id, claimed!.id, 'worker B took it');
  const transitions = new RunTransitions({ recordMany: async () => [] });
  const late = stepDone(claimed!, 'wait', clock.now(), 'mail', clock.now());
  t.equal(await knex.transaction((trx) => transitions.commit(trx, late)), false, 'A’s commit is refused');
  const row = await knex('automation_runs').where({ id: claimed!.id }).first();
  t.equal(row.next_step_key, 'wait', 'the run is where B found it');
  t.equal(row.lease_owner, 'worker-b');
  t.equal((await knex('automation_run_steps').where({ run_id: claimed!.id, step_key: 'wait' })).length, 0);
  t.equal(await knex.transaction((trx) => transitions.commit(trx, { ...late, run: taken! })), true, 'B commits');
  t.ok(automation);
});
