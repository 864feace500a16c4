import t from 'tap';
import { newId } from '../../lib/ids.js';
import { aiTeam, creditRecords, enableAi, startAiApp } from '../helpers/ai-fixture.js';
import { movableClock } from '../helpers/clock.js';
import { acceptEmail, sendingTeam } from '../helpers/email-activity.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The spec's checks of the AI routes, in its order: (1) AI not configured 503, nothing recorded;
 * (2) AI assist off 403 invalid_permission; (3) the month's credits spent 422 validation_error;
 * (4) more than 10 AI requests a minute 429 rate_limit_exceeded with retry-after. Each is shown
 * to come before the next by a team that would also fail the later ones. Credits over time with
 * an injected clock (spent to the limit, refused, renewed on the 1st of the next month, UTC).
 */
const clock = movableClock();
const { app, double, close } = await startAiApp({ clock });
t.teardown(close);
const plain = await startTestApp();
t.teardown(() => plain.close());

const post = (target: TestApp, path: string, token: string, body?: unknown) =>
  request(target.url, path, { method: 'POST', token, body });
/** One call of each AI route for the team (its email for diagnose). */
const everyRoute = (target: TestApp, token: string, emailId: string) => [
  () => post(target, '/ai/subject-lines', token, { subject: 'Hello' }),
  () => post(target, '/ai/draft', token, { brief: 'A welcome email' }),
  () => post(target, `/emails/${emailId}/diagnose`, token),
];
/** Spends the rest of the team's credits this month straight in the usage ledger. */
async function spendCredits(target: TestApp, teamId: string, quantity: number) {
  const knex = target.runtime.db.knex;
  await knex.transaction((trx) =>
    target.runtime.services.usage.record(trx, { teamId, category: 'ai_credits', quantity, at: clock.now() }),
  );
}
const countRows = async (target: TestApp, table: 'ai_diagnoses', teamId: string) =>
  Number(
    ((await target.runtime.db.knex(table).where({ team_id: teamId }).count({ n: '*' })) as Array<{ n: unknown }>)[0]!.n,
  );

t.beforeEach(() => double.reset());

t.test('(1) AI not configured: 503 on every AI route, before every other check; nothing recorded', async (t) => {
  const team = await sendingTeam(plain, 'no-ai');
  const email = await acceptEmail(plain, team, ['reader@example.net']);
  const patch = await request(plain.url, '/team', {
    method: 'PATCH',
    token: team.token,
    body: { ai_assist_enabled: true },
  });
  errorShape(t, patch, 503, 'service_unavailable');
  t.match(patch.body.message, /not configured/);
  // Even a team with AI assist on (set before the provider was removed) and no credits left gets 503.
  await plain.runtime.db.knex('teams').where({ id: team.teamId }).update({ ai_assist_enabled: true });
  plain.runtime.services.lookupCache.invalidate();
  await spendCredits(plain, team.teamId, 1_000_000);
  for (const call of everyRoute(plain, team.token, email.id)) {
    const res = await call();
    errorShape(t, res, 503, 'service_unavailable');
    t.match(res.body.message, /AI is not configured on this appliance/);
  }
  t.equal((await creditRecords(plain, team.teamId)).length, 1, 'no credit record beyond the test’s own');
  t.equal(await countRows(plain, 'ai_diagnoses', team.teamId), 0, 'no diagnosis stored');
  const off = await request(plain.url, '/team', {
    method: 'PATCH',
    token: team.token,
    body: { ai_assist_enabled: false },
  });
  t.equal(off.status, 200, 'false always works');
  t.equal(off.body.ai_assist_enabled, false);
});

t.test('PATCH /team ai_assist_enabled with AI configured', async (t) => {
  const { token } = await app.createTeam('Switch');
  t.equal((await request(app.url, '/team', { token })).body.ai_assist_enabled, false, 'off by default');
  const on = await request(app.url, '/team', { method: 'PATCH', token, body: { ai_assist_enabled: true } });
  t.equal(on.status, 200);
  t.equal(on.body.ai_assist_enabled, true);
  t.equal((await request(app.url, '/team', { token })).body.ai_assist_enabled, true);
  t.equal((await post(app, '/ai/subject-lines', token, { subject: 'Hi' })).status, 200, 'the helpers answer');
  const off = await request(app.url, '/team', { method: 'PATCH', token, body: { ai_assist_enabled: false } });
  t.equal(off.body.ai_assist_enabled, false);
  errorShape(t, await post(app, '/ai/subject-lines', token, { subject: 'Hi' }), 403, 'invalid_permission');
});

t.test('(2) AI assist off: 403 invalid_permission, before the credit check; the model is not called', async (t) => {
  const team = await sendingTeam(app, 'ai-off');
  const email = await acceptEmail(app, team, ['reader@example.net']);
  await spendCredits(app, team.teamId, 1_000_000);
  for (const call of everyRoute(app, team.token, email.id)) {
    const res = await call();
    errorShape(t, res, 403, 'invalid_permission');
    t.match(res.body.message, /AI assist is off/);
  }
  t.equal(double.requests.length, 0);
  t.equal(await countRows(app, 'ai_diagnoses', team.teamId), 0);
  // The email is looked up first: another team's (or an unknown) id is 404 whatever the checks say.
  errorShape(t, await post(app, `/emails/${newId()}/diagnose`, team.token), 404, 'not_found');
});

t.test('(3) credits spent: 422 validation_error, before the rate limit; renewed next month', async (t) => {
  const team = await sendingTeam(app, 'credits');
  await app.runtime.services.teams.setPlan(team.teamId, 'free');
  await enableAi(app, team.token);
  const email = await acceptEmail(app, team, ['reader@example.net']);
  await spendCredits(app, team.teamId, 24);
  const last = await post(app, '/ai/subject-lines', team.token, { subject: 'Hello' });
  t.equal(last.status, 200, 'the 25th credit of the free plan');
  t.same(last.body.credits, { limit: 25, used: 25, remaining: 0 });
  t.equal(last.body.credits_remaining, 0);
  const next = new Date(Date.UTC(clock.now().getUTCFullYear(), clock.now().getUTCMonth() + 1, 1));
  for (const call of everyRoute(app, team.token, email.id)) {
    const res = await call();
    errorShape(t, res, 422, 'validation_error');
    t.match(
      res.body.message,
      new RegExp(`25 AI credits for this month are spent; they renew on ${next.toISOString().slice(0, 10)}`),
    );
  }
  t.equal(double.requests.length, 1, 'refused before the model');
  t.equal((await creditRecords(app, team.teamId)).length, 2, 'nothing spent by the refusals');
  // Refusals for credits take no request from the bucket: with the one answered above, nine more
  // answer once credits renew (more if the bucket refilled meanwhile, one every 6 s), then 429.
  clock.advanceTo(next.getTime() + 1_000);
  let answered = 0;
  for (let i = 1; i <= 15; i++) {
    const res = await post(app, '/ai/subject-lines', team.token, { subject: 'Hello' });
    if (res.status !== 200) {
      errorShape(t, res, 429, 'rate_limit_exceeded');
      break;
    }
    if (++answered === 1) t.same(res.body.credits, { limit: 25, used: 1, remaining: 24 }, 'a new month, a new pool');
  }
  t.ok(answered >= 9 && answered < 15, `next month the team is answered again, up to the rate limit (${answered})`);
  // Now the bucket is empty and the credits are spent again: the credit check answers first.
  await spendCredits(app, team.teamId, 100);
  errorShape(t, await post(app, '/ai/subject-lines', team.token, { subject: 'Hello' }), 422, 'validation_error');
});

t.test('(4) the 11th AI request in a minute: 429 rate_limit_exceeded with retry-after; no credit', async (t) => {
  const team = await aiTeam(app, 'Busy', 'unlimited');
  const other = await aiTeam(app, 'Calm', 'unlimited');
  for (let i = 1; i <= 10; i++)
    t.equal((await post(app, '/ai/draft', team.token, { brief: `Email ${i}` })).status, 200, `request ${i}`);
  const limited = await post(app, '/ai/subject-lines', team.token, { subject: 'One more' });
  errorShape(t, limited, 429, 'rate_limit_exceeded');
  t.match(limited.body.message, /10 a minute per team/);
  const retryAfter = Number(limited.headers.get('retry-after'));
  t.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 6,
    `retry-after in whole seconds (${retryAfter})`,
  );
  t.equal(double.requests.length, 10, 'the 11th never reached the model');
  t.equal((await creditRecords(app, team.teamId)).length, 10, 'and spent nothing');
  t.equal(
    (await post(app, '/ai/subject-lines', other.token, { subject: 'Hi' })).status,
    200,
    'another team has its own',
  );
  // The bucket refills at 10 a minute (one every 6 s), in the shared store (Redis's own clock there):
  // this waits the real retry-after rather than moving the injected clock.
  await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000 + 100));
  t.equal(
    (await post(app, '/ai/subject-lines', team.token, { subject: 'Later' })).status,
    200,
    'allowed after retry-after',
  );
  errorShape(t, await post(app, '/ai/subject-lines', team.token, { subject: 'Again' }), 429, 'rate_limit_exceeded');
});
