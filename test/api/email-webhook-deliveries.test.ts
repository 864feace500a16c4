import t from 'tap';
import { newId } from '../../lib/ids.js';
import { sessionInTeam } from '../helpers/accounts.js';
import { acceptEmail, deliverAndBounce, sendingTeam } from '../helpers/email-activity.js';
import { errorShape, request } from '../helpers/http.js';
import { startWebhookApp, WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * GET /emails/{id}/webhook-deliveries: the webhook deliveries one email's events caused, each
 * with its endpoint, event, status, attempts and last HTTP status, so the dashboard links to
 * /webhooks/{webhook_id}/events/{event_id}.
 */
const ok = await WebhookReceiver.start();
const failing = await WebhookReceiver.start();
failing.status = 500;
const fx = await startWebhookApp({ webhooks: { retrySchedule: [3600] } });
t.teardown(async () => {
  await fx.close();
  await ok.down();
  await failing.down();
});
const app = fx.app;
const team = await sendingTeam(app, 'hooks');
const good = await fx.createEndpoint(ok.url('/good'), ['email.sent', 'email.delivered', 'email.bounced'], team.token);
const bad = await fx.createEndpoint(failing.url('/bad'), ['email.sent'], team.token);
const email = await acceptEmail(app, team, ['a@example.net', 'b@example.net']);
await deliverAndBounce(app, email);
const get = (path: string, token = team.token) => request(app.url, path, { token });

async function waitUntil(probe: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
await waitUntil(async () => {
  const rows = (await app.runtime.db.knex('webhook_deliveries').where({ team_id: team.teamId })) as Array<{
    attempts: number;
  }>;
  return rows.length === 4 && rows.every((row) => row.attempts >= 1);
}, 'every delivery attempted once');

t.test('one entry per (event, endpoint), oldest first, linked to the webhook event routes', async (t) => {
  const res = await get(`/emails/${email.id}/webhook-deliveries`);
  t.equal(res.status, 200);
  t.same(Object.keys(res.body), ['object', 'has_more', 'data']);
  t.equal(res.body.has_more, false);
  const data = res.body.data as Array<Record<string, any>>;
  t.equal(data.length, 4);
  for (const item of data)
    t.same(Object.keys(item), [
      'object',
      'id',
      'webhook_id',
      'endpoint',
      'event_id',
      'event_type',
      'status',
      'attempts',
      'last_status_code',
      'last_attempt_at',
      'created_at',
    ]);
  const events = (await get(`/emails/${email.id}/events`)).body.data as Array<{ id: string; type: string }>;
  const sent = events.find((e) => e.type === 'email.sent')!;
  const toBad = data.find((d) => d.webhook_id === bad.id)!;
  t.match(toBad, {
    object: 'webhook_delivery',
    endpoint: failing.url('/bad'),
    event_id: sent.id,
    event_type: 'email.sent',
    status: 'attempting',
    attempts: 1,
    last_status_code: 500,
  });
  const toGood = data.filter((d) => d.webhook_id === good.id);
  t.same(toGood.map((d) => d.event_type).sort(), ['email.bounced', 'email.delivered', 'email.sent']);
  for (const d of toGood)
    t.match(d, { endpoint: ok.url('/good'), status: 'success', attempts: 1, last_status_code: 200 });
  t.same(
    data.map((d) => d.id),
    data.map((d) => d.id).sort(),
    'oldest first',
  );
  const linked = await get(`/webhooks/${toBad.webhook_id}/events/${toBad.event_id}`);
  t.equal(linked.status, 200, 'the webhook event route answers for the ids given');
  t.equal(linked.body.payload.data.email_id, email.id);
});

t.test('paged by cursor; an email without webhook deliveries has an empty list', async (t) => {
  const all = (await get(`/emails/${email.id}/webhook-deliveries`)).body.data.map((d: { id: string }) => d.id);
  const first = await get(`/emails/${email.id}/webhook-deliveries?limit=3`);
  t.equal(first.body.has_more, true);
  t.same(
    first.body.data.map((d: { id: string }) => d.id),
    all.slice(0, 3),
  );
  const rest = await get(`/emails/${email.id}/webhook-deliveries?limit=3&after=${all[2]}`);
  t.same(
    rest.body.data.map((d: { id: string }) => d.id),
    all.slice(3),
  );
  t.equal(rest.body.has_more, false);
  const quiet = await acceptEmail(app, team, ['q@example.net']);
  t.same((await get(`/emails/${quiet.id}/webhook-deliveries`)).body, { object: 'list', has_more: false, data: [] });
});

t.test('deleting an endpoint removes its deliveries from the list (they are deleted with it)', async (t) => {
  const gone = await fx.createEndpoint(ok.url('/gone'), ['email.opened'], team.token);
  await app.runtime.services.emailTransitions.record(app.runtime.db.knex, email, 'email.opened', {
    open: { ipAddress: null, timestamp: new Date().toISOString(), userAgent: null },
  });
  const to = async () =>
    ((await get(`/emails/${email.id}/webhook-deliveries`)).body.data as Array<Record<string, unknown>>).filter(
      (d) => d.webhook_id === gone.id,
    );
  t.match(await to(), [{ event_type: 'email.opened', endpoint: ok.url('/gone') }]);
  t.equal((await request(app.url, `/webhooks/${gone.id}`, { method: 'DELETE', token: team.token })).status, 200);
  t.same(await to(), []);
});

t.test('the dashboard’s session cookie reads it', async (t) => {
  const cookie = await sessionInTeam(app, 'hal@example.com', team.teamId, 'member');
  const res = await request(app.url, `/emails/${email.id}/webhook-deliveries`, { headers: { cookie } });
  t.equal(res.status, 200);
  t.ok(res.body.data.length >= 4);
});

t.test('errors', async (t) => {
  const other = await sendingTeam(app, 'outsider');
  errorShape(t, await get(`/emails/${email.id}/webhook-deliveries`, other.token), 404, 'not_found');
  errorShape(t, await get(`/emails/${newId()}/webhook-deliveries`), 404, 'not_found');
  errorShape(t, await get('/emails/x/webhook-deliveries'), 422, 'invalid_parameter');
  const limit = errorShape(t, await get(`/emails/${email.id}/webhook-deliveries?limit=0`), 422, 'invalid_parameter');
  t.match(limit.errors, [{ path: 'limit' }]);
  const both = errorShape(
    t,
    await get(`/emails/${email.id}/webhook-deliveries?after=${newId()}&before=${newId()}`),
    422,
    'invalid_parameter',
  );
  t.match(both.errors, [{ path: 'before' }]);
  const sending = await app.runtime.services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });
  const refused = errorShape(
    t,
    await get(`/emails/${email.id}/webhook-deliveries`, sending.token),
    401,
    'restricted_api_key',
  );
  t.match(refused.message, /.+/);
  errorShape(t, await request(app.url, `/emails/${email.id}/webhook-deliveries`), 401, 'missing_api_key');
});
