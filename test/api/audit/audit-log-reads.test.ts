import t from 'tap';
import { asBrowser, sessionInTeam } from '../../helpers/accounts.js';
import { movableClock } from '../../helpers/clock.js';
import { errorShape, request } from '../../helpers/http.js';
import { createOperator } from '../../helpers/operator.js';
import { startTestApp } from '../../helpers/test-app.js';
import { approve, discover, exchange, registerClient } from '../oauth/oauth-fixture.js';

/**
 * Reading the audit log: GET /audit-logs with its filters and cursor pages, one entry by id, who
 * may read it (a team admin's session or a full_access key; never a member, a sending key or an
 * OAuth token), tenant isolation, the operator's view across teams, and retention by plan.
 */
const clock = movableClock();
const app = await startTestApp({ clock });
t.teardown(() => app.close());
const DAY = 86_400_000;

const team = await app.createTeam('Readers', 'pro');
const other = await app.createTeam('Others', 'free');
const read = (path: string, token = team.token) => request(app.url, path, { token });
/** Twelve keys created a minute apart, then two webhooks: entries of two actions. */
const keyIds: string[] = [];
for (let i = 0; i < 12; i++) {
  clock.advanceTo(clock.now().getTime() + 60_000);
  const res = await request(app.url, '/api-keys', { method: 'POST', token: team.token, body: { name: `key ${i}` } });
  keyIds.push(res.body.id);
}
for (const path of ['https://93.184.216.10/a', 'https://93.184.216.10/b']) {
  clock.advanceTo(clock.now().getTime() + 60_000);
  await request(app.url, '/webhooks', {
    method: 'POST',
    token: team.token,
    body: { endpoint: path, events: ['email.sent'] },
  });
}
await request(app.url, '/api-keys', { method: 'POST', token: other.token, body: { name: 'theirs' } });

t.test('a page, newest first, in the documented shape', async (t) => {
  const res = await read('/audit-logs?limit=3');
  t.equal(res.status, 200);
  t.same(Object.keys(res.body).sort(), ['data', 'has_more', 'object']);
  t.match(res.body, { object: 'list', has_more: true });
  t.same(
    res.body.data.map((e: { action: string }) => e.action),
    ['webhook.created', 'webhook.created', 'api_key.created'],
  );
  const entry = res.body.data[2];
  t.same(Object.keys(entry).sort(), [
    ...['action', 'actor', 'created_at', 'id', 'ip', 'metadata', 'object', 'resource', 'user_agent'],
  ]);
  t.match(entry, {
    object: 'audit_log',
    actor: { type: 'api_key', id: team.keyId, name: String },
    resource: { type: 'api_key', id: keyIds[11] },
    metadata: { name: 'key 11', permission: 'full_access' },
    user_agent: 'mailroom-tests/1.0',
  });
  t.ok(Date.parse(res.body.data[0].created_at) > Date.parse(entry.created_at), 'newest first');
});

t.test('cursor pages walk every entry once, forwards and back', async (t) => {
  const seen: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await read(`/audit-logs?limit=5${after ? `&after=${after}` : ''}`);
    seen.push(...page.body.data.map((e: { id: string }) => e.id));
    if (!page.body.has_more) break;
    after = page.body.data.at(-1).id;
  }
  t.equal(seen.length, 14);
  t.equal(new Set(seen).size, 14, 'no entry twice');
  const back = await read(`/audit-logs?limit=5&before=${seen[10]}`);
  t.same(
    back.body.data.map((e: { id: string }) => e.id),
    seen.slice(5, 10),
    'before= gives the newer page',
  );
});

t.test('filters: action, actor, resource, dates', async (t) => {
  const webhooks = await read('/audit-logs?action=webhook.created');
  t.equal(webhooks.body.data.length, 2);
  t.equal((await read(`/audit-logs?resource_type=api_key&resource_id=${keyIds[3]}`)).body.data.length, 1);
  t.equal((await read(`/audit-logs?actor_type=api_key&actor_id=${team.keyId}`)).body.data.length, 14);
  t.equal((await read('/audit-logs?actor_type=user')).body.data.length, 0);
  const all = (await read('/audit-logs?limit=100')).body.data as Array<{ created_at: string }>;
  const middle = all[7]!.created_at;
  const since = await read(`/audit-logs?limit=100&start_date=${encodeURIComponent(middle)}`);
  t.equal(since.body.data.length, 8, 'start_date is inclusive');
  const until = await read(`/audit-logs?limit=100&end_date=${encodeURIComponent(middle)}`);
  t.equal(until.body.data.length, 7);
});

t.test('bad queries are refused with the error body', async (t) => {
  for (const [query, path] of [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['after=nope', 'after'],
    ['actor_type=robot', 'actor_type'],
    ['action=Drop Table', 'action'],
    ['start_date=yesterday', 'start_date'],
    ['start_date=2026-02-01&end_date=2026-01-01', 'end_date'],
    ['team_id=0199a0a0-0000-7000-8000-000000000000', 'team_id'],
  ]) {
    const body = errorShape(t, await read(`/audit-logs?${query}`), 422, 'invalid_parameter');
    t.match(JSON.stringify(body), path, `${query} names ${path}`);
  }
  const after = (await read('/audit-logs?limit=1')).body.data[0].id;
  errorShape(t, await read(`/audit-logs?after=${after}&before=${after}`), 422, 'invalid_parameter');
  errorShape(t, await read('/audit-logs/0199a0a0-0000-7000-8000-000000000000'), 404, 'not_found');
  errorShape(t, await read('/audit-logs/not-an-id'), 422, 'invalid_parameter');
});

t.test('one entry by id; another team sees 404 with its key or its session', async (t) => {
  const id = (await read('/audit-logs?limit=1')).body.data[0].id;
  const got = await read(`/audit-logs/${id}`);
  t.equal(got.status, 200);
  t.match(got.body, { object: 'audit_log', id, action: 'webhook.created' });
  errorShape(t, await read(`/audit-logs/${id}`, other.token), 404, 'not_found');
  const otherAdmin = await sessionInTeam(app, 'admin@others.test', other.teamId, 'owner');
  errorShape(t, await asBrowser(app, `/audit-logs/${id}`, otherAdmin), 404, 'not_found');
  const theirs = await read('/audit-logs?limit=100', other.token);
  t.same(
    theirs.body.data.map((e: { action: string }) => e.action),
    ['api_key.created'],
    'a team lists only its own entries',
  );
});

t.test('who may read: admins and full_access keys, not members, sending keys or OAuth tokens', async (t) => {
  const admin = await sessionInTeam(app, 'ada@readers.test', team.teamId, 'admin');
  t.equal((await asBrowser(app, '/audit-logs', admin)).status, 200, 'an admin');
  const member = await sessionInTeam(app, 'mel@readers.test', team.teamId, 'member');
  errorShape(t, await asBrowser(app, '/audit-logs', member), 403, 'invalid_permission');
  const id = (await read('/audit-logs?limit=1')).body.data[0].id;
  errorShape(t, await asBrowser(app, `/audit-logs/${id}`, member), 403, 'invalid_permission');
  const sending = await request(app.url, '/api-keys', {
    method: 'POST',
    token: team.token,
    body: { name: 'sender', permission: 'sending_access' },
  });
  errorShape(t, await read('/audit-logs', sending.body.token), 401, 'restricted_api_key');
  const as = await discover(app);
  const client = await registerClient(as, { scope: 'team:read team:write' });
  const tokens = await exchange(as, client, await approve(app, as, client, team.teamId, ['team:read', 'team:write']));
  errorShape(t, await read('/audit-logs', tokens.access_token), 403, 'invalid_permission');
  errorShape(t, await request(app.url, '/audit-logs'), 401, 'missing_api_key');
});

t.test("the operator's view: every team, filtered by team; teams' credentials never reach it", async (t) => {
  const operator = await createOperator(app);
  const all = await asBrowser(app, '/admin/audit-logs?limit=100', operator.cookie);
  t.equal(all.status, 200);
  const teams = new Set(all.body.data.map((e: { team_id: string }) => e.team_id));
  t.ok(teams.has(team.teamId) && teams.has(other.teamId), 'entries of both teams');
  const theirs = await asBrowser(app, `/admin/audit-logs?team_id=${other.teamId}`, operator.cookie);
  t.same(
    theirs.body.data.map((e: { team_id: string; action: string }) => [e.team_id, e.action]),
    [[other.teamId, 'api_key.created']],
  );
  const one = await asBrowser(app, `/admin/audit-logs/${theirs.body.data[0].id}`, operator.cookie);
  t.match(one.body, { object: 'audit_log', team_id: other.teamId });
  errorShape(t, await read('/admin/audit-logs'), 403, 'invalid_permission');
  errorShape(t, await asBrowser(app, '/admin/audit-logs?team_id=x', operator.cookie), 422, 'invalid_parameter');
});

t.test("retention follows the plan's audit_retention_days", async (t) => {
  const plans = (await read('/team')).body.plan.limits;
  t.equal(plans.audit_retention_days, 90, 'pro keeps 90 days');
  clock.advanceTo(clock.now().getTime() + 31 * DAY);
  t.equal(await app.runtime.services.audit.purgeExpired(), 1, "the free team's entry went after 30 days");
  // Fourteen written at the start, and the sending key of the permissions test.
  t.equal((await read('/audit-logs?limit=100')).body.data.length, 15, "the pro team's stay");
  clock.advanceTo(clock.now().getTime() + 60 * DAY);
  t.equal(await app.runtime.services.audit.purgeExpired(), 15);
  t.same((await read('/audit-logs')).body.data, []);
});
