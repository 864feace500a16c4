import { Webhook as StandardWebhook } from 'standardwebhooks';
import t from 'tap';
import { contributionOf } from '../../core/events/metrics/event-counts.js';
import { sessionInTeam } from '../helpers/accounts.js';
import { errorShape, request } from '../helpers/http.js';
import { startWebhookApp, WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * POST /webhooks/{id}/test: a test event through the ordinary signed delivery path (a real
 * receiver, a real worker), listed with its attempts, seen by no other endpoint and no metric.
 */
const receiver = await WebhookReceiver.start();
const fx = await startWebhookApp();
t.teardown(async () => {
  await fx.close();
  await receiver.down();
});
const { app, team } = fx;
const call = (method: string, path: string, body?: unknown, token = team.token) =>
  request(app.url, path, { method, token, body });

async function waitUntil(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`waited for ${what}`);
}

t.test('sends the first subscribed type, signed, with data.test; listed with its attempt', async (t) => {
  const endpoint = await fx.createEndpoint(receiver.url('/first'), ['email.delivered', 'domain.created']);
  const bystander = await fx.createEndpoint(receiver.url('/bystander'), ['email.delivered']);
  const res = await call('POST', `/webhooks/${endpoint.id}/test`);
  t.equal(res.status, 200, res.text);
  t.same(Object.keys(res.body).sort(), ['id', 'object', 'type']);
  t.match(res.body, { object: 'webhook_event', type: 'email.delivered' });

  const path = `/webhooks/${endpoint.id}/events/${res.body.id}`;
  await waitUntil(async () => (await call('GET', path)).body.status === 'success', 'the delivery');
  const received = receiver.received.filter((w) => w.path === '/first');
  t.equal(received.length, 1);
  const delivery = received[0]!;
  t.equal(delivery.headers['webhook-id'], res.body.id, 'webhook-id is the event id');
  const verified = new StandardWebhook(endpoint.secret).verify(delivery.body, {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  }) as { type: string; data: Record<string, unknown> };
  t.equal(verified.type, 'email.delivered');
  t.match(verified.data, {
    test: true,
    email_id: /^[0-9a-f-]{36}$/,
    from: 'Mailroom test <test@example.com>',
    to: ['recipient@example.com'],
    subject: 'Mailroom webhook test',
  });

  const list = (await call('GET', `/webhooks/${endpoint.id}/events`)).body;
  t.match(list.data, [{ id: res.body.id, type: 'email.delivered', status: 'success' }]);
  const got = (await call('GET', path)).body;
  t.match(got, { object: 'webhook_event', attempts: 1, payload: { type: 'email.delivered', data: { test: true } } });
  const attempts = (await call('GET', `${path}/attempts`)).body;
  t.match(attempts.data, [{ http_status_code: 200, error: null }]);
  t.equal(receiver.received.filter((w) => w.path === '/bystander').length, 0, 'no other endpoint gets it');
  t.same((await call('GET', `/webhooks/${bystander.id}/events`)).body.data, []);

  // The roll-up reads the events table: a test event names a made-up email and counts for nothing.
  const event = await app.runtime.services.eventLog.find(res.body.id);
  t.same(contributionOf(event!, undefined), { counts: {}, once: [] });
});

t.test('type picks another subscribed type; the session cookie works as a key does', async (t) => {
  const endpoint = await fx.createEndpoint(receiver.url('/typed'), [
    'email.delivered',
    'email.bounced',
    'contact.created',
  ]);
  const bounced = await call('POST', `/webhooks/${endpoint.id}/test`, { type: 'email.bounced' });
  t.match(bounced.body, { object: 'webhook_event', type: 'email.bounced' });
  const cookie = await sessionInTeam(app, 'hooks@example.com', team.teamId, 'owner');
  const contact = await request(app.url, `/webhooks/${endpoint.id}/test`, {
    method: 'POST',
    body: { type: 'contact.created' },
    headers: { cookie, origin: new URL(app.url).origin },
  });
  t.equal(contact.status, 200, contact.text);
  t.match(contact.body, { object: 'webhook_event', type: 'contact.created' });
  await waitUntil(async () => receiver.received.filter((w) => w.path === '/typed').length === 2, 'two deliveries');
  const bodies = receiver.received.filter((w) => w.path === '/typed').map((w) => JSON.parse(w.body));
  const byType = Object.fromEntries(bodies.map((b) => [b.type, b.data]));
  t.match(byType['email.bounced'], { test: true, bounce: { type: 'Permanent', subType: 'General' } });
  t.match(byType['contact.created'], { test: true, object: 'contact', email: 'recipient@example.com' });
});

t.test('refusals: type not subscribed or unknown, bad body, disabled endpoint, unknown endpoint', async (t) => {
  const endpoint = await fx.createEndpoint(receiver.url('/refusals'), ['email.sent']);
  const notSubscribed = errorShape(
    t,
    await call('POST', `/webhooks/${endpoint.id}/test`, { type: 'email.bounced' }),
    422,
    'validation_error',
  );
  t.match(notSubscribed, { message: /not subscribed to email\.bounced/, errors: [{ path: 'type' }] });
  const unknown = errorShape(
    t,
    await call('POST', `/webhooks/${endpoint.id}/test`, { type: 'email.teleported' }),
    422,
    'validation_error',
  );
  t.match(unknown, { errors: [{ path: 'type' }] });
  errorShape(t, await call('POST', `/webhooks/${endpoint.id}/test`, { type: 5 }), 400, 'validation_error');
  errorShape(t, await call('POST', `/webhooks/${endpoint.id}/test`, { kind: 'x' }), 400, 'validation_error');

  t.equal((await call('PATCH', `/webhooks/${endpoint.id}`, { status: 'disabled' })).status, 200);
  const disabled = errorShape(t, await call('POST', `/webhooks/${endpoint.id}/test`), 422, 'validation_error');
  t.match(disabled.message, /disabled/);
  t.same((await call('GET', `/webhooks/${endpoint.id}/events`)).body.data, [], 'nothing was queued');

  errorShape(t, await call('POST', '/webhooks/0199a0a0-0000-7000-8000-000000000000/test'), 404, 'not_found');
  const other = await app.createTeam('Other team', 'unlimited');
  errorShape(t, await call('POST', `/webhooks/${endpoint.id}/test`, undefined, other.token), 404, 'not_found');
  errorShape(t, await request(app.url, `/webhooks/${endpoint.id}/test`, { method: 'POST' }), 401, 'missing_api_key');
  const sending = await app.runtime.services.apiKeys.create(team.teamId, { name: 's', permission: 'sending_access' });
  errorShape(t, await call('POST', `/webhooks/${endpoint.id}/test`, {}, sending.token), 401, 'restricted_api_key');
});
