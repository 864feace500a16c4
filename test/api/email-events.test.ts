import t from 'tap';
import { addEventsEmailId } from '../../db/migrations/20261127-0089-add-events-email-id.js';
import { newId } from '../../lib/ids.js';
import { sessionInTeam } from '../helpers/accounts.js';
import { acceptEmail, deliverAndBounce, sendingTeam } from '../helpers/email-activity.js';
import { errorShape, request } from '../helpers/http.js';
import { startTestApp } from '../helpers/test-app.js';

/** GET /emails/{id}/events: every event recorded for one email, oldest first, paged by cursor. */
const app = await startTestApp();
t.teardown(() => app.close());
const team = await sendingTeam(app, 'timeline');
const email = await acceptEmail(app, team, ['a@example.net', 'b@example.net']);
await deliverAndBounce(app, email);
const events = (path: string, token = team.token) => request(app.url, path, { token });

t.test('the timeline: sent, delivered, bounced (type, diagnostic code), opened, clicked (link)', async (t) => {
  const res = await events(`/emails/${email.id}/events`);
  t.equal(res.status, 200);
  t.same(Object.keys(res.body), ['object', 'has_more', 'data']);
  t.equal(res.body.object, 'list');
  t.equal(res.body.has_more, false);
  const data = res.body.data as Array<{ object: string; id: string; type: string; created_at: string; data: any }>;
  t.same(
    data.map((e) => e.type),
    ['email.sent', 'email.delivered', 'email.bounced', 'email.opened', 'email.clicked'],
    'oldest first',
  );
  for (const event of data) {
    t.same(Object.keys(event), ['object', 'id', 'type', 'created_at', 'data']);
    t.equal(event.object, 'event');
    t.equal(event.data.email_id, email.id);
    t.ok(!Number.isNaN(Date.parse(event.created_at)));
  }
  t.same(
    data.map((e) => e.id),
    data.map((e) => e.id).sort(),
    'ids ascend',
  );
  t.same(data[1]!.data.to, ['a@example.net'], 'delivered: the recipient it is about');
  t.match(data[2]!.data, {
    to: ['b@example.net'],
    bounce: { type: 'Permanent', subType: 'General', diagnosticCode: [/550 5\.1\.1/] },
  });
  t.match(data[3]!.data.open, { ipAddress: '192.0.2.1', userAgent: 'Mail' });
  t.equal(data[4]!.data.click.link, 'https://example.com/offer');
  const other = await acceptEmail(app, team, ['c@example.net']);
  t.same((await events(`/emails/${other.id}/events`)).body.data, [], 'a queued email has no event yet');
});

t.test('a scheduled, then canceled email: email.scheduled, email.canceled', async (t) => {
  const scheduled = await acceptEmail(app, team, ['s@example.net'], {
    scheduled_at: new Date(Date.now() + 3600_000).toISOString(),
  });
  const cancel = await request(app.url, `/emails/${scheduled.id}/cancel`, { method: 'POST', token: team.token });
  t.equal(cancel.status, 200);
  const res = await events(`/emails/${scheduled.id}/events`);
  t.same(
    res.body.data.map((e: { type: string }) => e.type),
    ['email.scheduled', 'email.canceled'],
  );
});

t.test('cursor pages: limit, after (next page), before (previous page), still oldest first', async (t) => {
  const all = (await events(`/emails/${email.id}/events`)).body.data.map((e: { id: string }) => e.id);
  const first = await events(`/emails/${email.id}/events?limit=2`);
  t.equal(first.body.has_more, true);
  t.same(
    first.body.data.map((e: { id: string }) => e.id),
    all.slice(0, 2),
  );
  const next = await events(`/emails/${email.id}/events?limit=2&after=${all[1]}`);
  t.same(
    next.body.data.map((e: { id: string }) => e.id),
    all.slice(2, 4),
  );
  t.equal(next.body.has_more, true);
  const last = await events(`/emails/${email.id}/events?limit=2&after=${all[3]}`);
  t.same(
    last.body.data.map((e: { id: string }) => e.id),
    all.slice(4),
  );
  t.equal(last.body.has_more, false);
  const previous = await events(`/emails/${email.id}/events?limit=2&before=${all[4]}`);
  t.same(
    previous.body.data.map((e: { id: string }) => e.id),
    all.slice(2, 4),
  );
  t.equal(previous.body.has_more, true);
});

t.test('the dashboard’s session cookie and a sending_access key read it too', async (t) => {
  const cookie = await sessionInTeam(app, 'tim@example.com', team.teamId, 'member');
  const res = await request(app.url, `/emails/${email.id}/events`, { headers: { cookie } });
  t.equal(res.status, 200);
  t.equal(res.body.data.length, 5);
  const sending = await app.runtime.services.apiKeys.create(team.teamId, {
    name: 'sending',
    permission: 'sending_access',
  });
  t.equal((await events(`/emails/${email.id}/events`, sending.token)).status, 200);
  t.equal((await request(app.url, `/api/v1/emails/${email.id}/events`, { token: team.token })).status, 200);
});

t.test('errors', async (t) => {
  const other = await sendingTeam(app, 'elsewhere');
  const foreign = errorShape(t, await events(`/emails/${email.id}/events`, other.token), 404, 'not_found');
  t.match(foreign.message, /Email not found/);
  errorShape(t, await events(`/emails/${newId()}/events`), 404, 'not_found');
  const malformed = errorShape(t, await events('/emails/not-an-id/events'), 422, 'invalid_parameter');
  t.match(malformed.errors, [{ path: 'email_id' }]);
  for (const [query, path] of [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['after=nope', 'after'],
    [`after=${newId()}&before=${newId()}`, 'before'],
    ['type=email.sent', ''],
  ] as const) {
    const refused = errorShape(t, await events(`/emails/${email.id}/events?${query}`), 422, 'invalid_parameter');
    t.equal(refused.errors?.[0]?.path, path, query);
  }
  errorShape(t, await request(app.url, `/emails/${email.id}/events`), 401, 'missing_api_key');
  errorShape(t, await events(`/emails/${email.id}/events`, 'svc_not_a_key'), 401, 'invalid_api_key');
});

t.test('events recorded before the email_id column are found once the migration backfills them', async (t) => {
  const knex = app.runtime.db.knex;
  const legacy = await acceptEmail(app, team, ['l@example.net']);
  const id = newId();
  await knex('events').insert({
    id,
    team_id: team.teamId,
    type: 'email.delivered',
    data: JSON.stringify({ email_id: legacy.id, to: ['l@example.net'] }),
    email_id: null,
    created_at: new Date(),
  });
  await knex('events').insert({
    id: newId(),
    team_id: team.teamId,
    type: 'email.received',
    data: JSON.stringify({ email_id: legacy.id }),
    email_id: null,
    created_at: new Date(),
  });
  t.same((await events(`/emails/${legacy.id}/events`)).body.data, [], 'not linked yet');
  await addEventsEmailId.up(knex);
  const res = await events(`/emails/${legacy.id}/events`);
  t.same(
    res.body.data.map((e: { id: string; type: string }) => [e.id, e.type]),
    [[id, 'email.delivered']],
    'the email.* event is linked; email.received (a received email’s id) is not',
  );
});
