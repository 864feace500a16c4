import { Resend } from 'resend';
import t, { type Test } from 'tap';
import { movableClock } from '../../helpers/clock.js';
import { request, type HttpResponse } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';
import { lowerPlanLimits } from '../../helpers/plan-limits.js';

/**
 * The plan's monthly automation run limit, enforced where runs start (enrolment): a run past it
 * is recorded as failed with the reason, starts no step and is not counted; GET /usage reports
 * the runs started this month against the limit; the count restarts with the month. The free
 * plan's limit is lowered to 2 in this process (restored after); the clock starts on the 15th
 * of next month.
 */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const real = new Date();
clock.advanceTo(new Date(Date.UTC(real.getUTCFullYear(), real.getUTCMonth() + 1, 15, 12)));
const { knex } = app.runtime.db;
lowerPlanLimits(t, 'free', { automation_runs_monthly: 2 });

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const ok = (t: Test, res: HttpResponse) => {
  t.ok(res.status < 300, `setup ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  return res.body.id as string;
};

/** A free team with an automation that only waits (no email needed) on user.signed_up, and contacts. */
async function setup(t: Test, name: string, contacts: number) {
  const team = await app.createTeam(name, 'free');
  ok(t, await call(team, 'POST', '/events', { name: 'user.signed_up' }));
  const automation = ok(
    t,
    await call(team, 'POST', '/automations', {
      name: 'Wait',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
        { key: 'wait', type: 'delay', config: { duration: '2 days' } },
      ],
      connections: [{ from: 'start', to: 'wait' }],
    }),
  );
  const ids: string[] = [];
  for (let i = 0; i < contacts; i++)
    ids.push(ok(t, await call(team, 'POST', '/contacts', { email: `c${i}@${name}.test` })));
  const signUp = (contactId: string) =>
    call(team, 'POST', '/events/send', { event: 'user.signed_up', contact_id: contactId, payload: {} });
  return { team, automation, contacts: ids, signUp };
}

const usage = async (team: Team) =>
  (await new Resend(team.token, { baseUrl: `${app.url}/api/v1` } as never).usage.get()).data!.automation_runs;

t.test('runs past the monthly limit are refused with the reason, and not counted', async (t) => {
  const { team, automation, contacts, signUp } = await setup(t, 'limited', 4);
  for (const id of contacts.slice(0, 3)) t.equal((await signUp(id)).status, 202);
  await app.runtime.services.automationRuns.tick(60_000);

  const runs = await knex('automation_runs').where({ automation_id: automation }).orderBy('id');
  t.same(
    runs.map((r) => r.status),
    ['running', 'running', 'failed'],
    'two started, the third refused',
  );
  const refused = runs[2];
  t.match(refused.error, /^Not started: the Free plan's 2 automation runs this month are used up/);
  t.equal(refused.next_step_key, null, 'it has nothing to do');
  t.ok(refused.ended_at, 'it ended');
  const steps = await knex('automation_run_steps').where({ run_id: refused.id });
  t.match(steps, [{ step_key: 'start', status: 'failed' }], 'only its trigger step, failed');
  const events = await knex('events').where({ team_id: team.teamId }).where('type', 'like', 'automation.run.%');
  t.same(
    events.map((e) => e.type).sort(),
    ['automation.run.failed', 'automation.run.started', 'automation.run.started'],
    'automation.run.failed tells the team',
  );
  const listed = await call(team, 'GET', `/automations/${automation}/runs/${refused.id}`);
  t.equal(listed.status, 200);
  t.match(listed.body, { status: 'failed' }, 'the API shows it');

  t.same(await usage(team), { used: 2, limit: 2, resets_at: resetsAt() }, 'GET /usage: the two started');

  // Another occurrence: still refused (the refused run did not use up room).
  await signUp(contacts[3]!);
  await app.runtime.services.automationRuns.enrol();
  t.equal(
    (await knex('automation_runs').where({ automation_id: automation, status: 'failed' })).length,
    2,
    'refused again',
  );
  t.equal((await usage(team)).used, 2);

  // Another team has its own room.
  const other = await setup(t, 'other', 1);
  await other.signUp(other.contacts[0]!);
  await app.runtime.services.automationRuns.enrol();
  t.match(await knex('automation_runs').where({ automation_id: other.automation }), [{ status: 'running' }]);
  t.equal((await usage(other.team)).used, 1);

  // A new month: the count restarts and runs start again.
  clock.advanceTo(new Date(resetsAt()).getTime() + 3_600_000);
  t.equal((await usage(team)).used, 0, 'a new month');
  await signUp(contacts[0]!);
  await app.runtime.services.automationRuns.enrol();
  const latest = await knex('automation_runs').where({ automation_id: automation }).orderBy('id', 'desc').first();
  t.equal(latest.status, 'running', 'started');
  t.equal((await usage(team)).used, 1);
});

/** The first of next month (from the clock's now), 00:00 UTC. */
function resetsAt(): string {
  const now = clock.now();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
}
