import t, { type Test } from 'tap';
import { newId } from '../../../lib/ids.js';
import { movableClock } from '../../helpers/clock.js';
import { declared } from '../../helpers/declared-schema.js';
import { errorShape, request, type HttpResponse } from '../../helpers/http.js';
import { startTestApp } from '../../helpers/test-app.js';

/** GET /automations/{id}/versions and GET /automations/{id}/runs/{run_id}/version. */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const tick = () => app.runtime.services.automationRuns.tick(60_000);

type Team = { teamId: string; token: string };
const call = (team: Team, method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
const ok = (t: Test, res: HttpResponse) => {
  t.ok(res.status < 300, `setup ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body.id as string;
};

const graph = (duration: string) => ({
  steps: [
    { key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } },
    { key: 'wait', type: 'delay', config: { duration } },
  ],
  connections: [{ from: 'start', to: 'wait' }],
});

t.test(
  'versions newest first, the active one marked, runs pinned to each counted; a run names its version',
  async (t) => {
    const team = await app.createTeam('Versions', 'unlimited');
    ok(t, await call(team, 'POST', '/events', { name: 'user.signed_up' }));
    const contact = ok(t, await call(team, 'POST', '/contacts', { email: 'ada@example.com' }));
    const id = ok(t, await call(team, 'POST', '/automations', { name: 'Flow', status: 'enabled', ...graph('2 days') }));
    const send = () =>
      call(team, 'POST', '/events/send', { event: 'user.signed_up', contact_id: contact, payload: {} });

    t.equal((await send()).status, 202);
    await tick();
    const firstRun = (await call(team, 'GET', `/automations/${id}/runs`)).body.data[0].id as string;
    t.equal((await call(team, 'PATCH', `/automations/${id}`, graph('3 days'))).status, 200, 'version 2 published');
    t.equal((await send()).status, 202);
    await tick();
    const runs = (await call(team, 'GET', `/automations/${id}/runs`)).body.data as Array<{ id: string }>;
    t.equal(runs.length, 2);
    const secondRun = runs.find((r) => r.id !== firstRun)!.id;

    const list = await call(team, 'GET', `/automations/${id}/versions`);
    t.equal(list.status, 200);
    declared(t, 'GET', '/automations/:automation_id/versions', list);
    t.match(list.body, { object: 'list', has_more: false });
    t.same(
      list.body.data.map((v: { number: number; active: boolean; runs: Record<string, number> }) => [
        v.number,
        v.active,
        v.runs,
      ]),
      [
        [2, true, { running: 1, completed: 0, failed: 0, cancelled: 0 }],
        [1, false, { running: 1, completed: 0, failed: 0, cancelled: 0 }],
      ],
      'the run started on version 1 stays pinned to it',
    );
    t.same(list.body.data[0].steps[1].config, { duration: '3 days' }, 'each version carries its own graph');
    t.same(list.body.data[1].steps[1].config, { duration: '2 days' });
    t.same(list.body.data[0].connections, [{ from: 'start', to: 'wait', type: 'default' }]);
    t.same(Object.keys(list.body.data[0]).sort(), [
      'active',
      'connections',
      'created_at',
      'id',
      'number',
      'object',
      'runs',
      'steps',
    ]);

    const old = await call(team, 'GET', `/automations/${id}/runs/${firstRun}/version`);
    t.equal(old.status, 200);
    declared(t, 'GET', '/automations/:automation_id/runs/:run_id/version', old);
    t.match(old.body, { object: 'automation_version', number: 1, active: false, id: list.body.data[1].id });
    const current = await call(team, 'GET', `/automations/${id}/runs/${secondRun}/version`);
    t.match(current.body, { number: 2, active: true, id: list.body.data[0].id });

    await call(team, 'POST', `/automations/${id}/stop`);
    const stopped = await call(team, 'GET', `/automations/${id}/versions`);
    t.same(
      stopped.body.data.map((v: { runs: Record<string, number> }) => v.runs.cancelled),
      [1, 1],
      'stopping cancels the runs of every version',
    );
  },
);

t.test('refusals: unknown automation or run, another team, a restricted key', async (t) => {
  const team = await app.createTeam('Refusals', 'unlimited');
  ok(t, await call(team, 'POST', '/events', { name: 'user.signed_up' }));
  const id = ok(t, await call(team, 'POST', '/automations', { name: 'Flow', ...graph('1 day') }));

  errorShape(t, await call(team, 'GET', `/automations/${newId()}/versions`), 404, 'not_found');
  errorShape(t, await call(team, 'GET', `/automations/${id}/runs/${newId()}/version`), 404, 'not_found');
  errorShape(t, await call(team, 'GET', `/automations/${id}/runs/not-an-id/version`), 404, 'not_found');
  const other = await app.createTeam('Other', 'unlimited');
  errorShape(t, await call(other, 'GET', `/automations/${id}/versions`), 404, 'not_found');

  const listed = await call(team, 'GET', `/automations/${id}/versions`);
  t.equal(listed.body.data.length, 1, 'a new automation has version 1');
  t.match(listed.body.data[0], {
    number: 1,
    active: true,
    runs: { running: 0, completed: 0, failed: 0, cancelled: 0 },
  });
  const unauthenticated = await request(app.url, `/automations/${id}/versions`, { method: 'GET' });
  errorShape(t, unauthenticated, 401, 'missing_api_key');
});
