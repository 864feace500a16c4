import { Resend } from 'resend';
import t from 'tap';
import { startWebhookApp, WebhookReceiver } from '../helpers/webhook-receiver.js';

/** The `resend` SDK's webhooks.* calls against the appliance, as an integration would make them. */
const receiver = await WebhookReceiver.start();
const fx = await startWebhookApp();
t.teardown(async () => {
  await fx.close();
  await receiver.down();
});
const resend = new Resend(fx.team.token, { baseUrl: `${fx.app.url}/api/v1` } as never);

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

t.test('create, get, list, update, rotate, remove', async (t) => {
  const created = await resend.webhooks.create({
    endpoint: receiver.url('/sdk'),
    events: ['email.delivered', 'domain.created'],
  });
  t.equal(created.error, null);
  t.match(created.data, { object: 'webhook', id: String, signing_secret: /^whsec_/ });
  const id = created.data!.id;
  const got = await resend.webhooks.get(id);
  t.equal(got.error, null);
  t.match(got.data, {
    object: 'webhook',
    id,
    status: 'enabled',
    endpoint: receiver.url('/sdk'),
    events: ['email.delivered', 'domain.created'],
    signing_secret: created.data!.signing_secret,
    created_at: String,
  });
  const listed = await resend.webhooks.list({ limit: 10 });
  t.equal(listed.error, null);
  t.match(listed.data, {
    object: 'list',
    has_more: false,
    data: [{ id, endpoint: receiver.url('/sdk'), status: 'enabled' }],
  });
  const updated = await resend.webhooks.update(id, { events: ['suppression.added'], status: 'disabled' });
  t.same(updated, { data: { object: 'webhook', id }, error: null, headers: updated.headers });
  t.match((await resend.webhooks.get(id)).data, { status: 'disabled', events: ['suppression.added'] });
  const rotated = await resend.webhooks.rotateSigningSecret(id);
  t.equal(rotated.error, null);
  t.match(rotated.data, { object: 'webhook', id, signing_secret: /^whsec_/ });
  t.not(rotated.data!.signing_secret, created.data!.signing_secret);
  const removed = await resend.webhooks.remove(id);
  t.match(removed.data, { object: 'webhook', id, deleted: true });
  const gone = await resend.webhooks.get(id);
  t.match(gone.error, { statusCode: 404, name: 'not_found' });
});

t.test('events list, get, replay and attempts list; verify() accepts the delivery', async (t) => {
  const created = await resend.webhooks.create({
    endpoint: receiver.url('/sdk-events'),
    events: ['suppression.added'],
  });
  const webhookId = created.data!.id;
  await fx.app.runtime.services.suppressions.add(fx.team.teamId, 'sdk@example.com');
  const list = await until(async () => {
    const page = await resend.webhooks.events.list({ webhookId, limit: 5 });
    return page.data?.data[0]?.status === 'success' ? page : undefined;
  }, 'a successful delivery');
  t.equal(list.error, null);
  t.match(list.data, {
    object: 'list',
    has_more: false,
    data: [{ id: String, type: 'suppression.added', created_at: String, status: 'success' }],
  });
  const eventId = list.data!.data[0]!.id;
  const event = await resend.webhooks.events.get({ webhookId, eventId });
  t.equal(event.error, null);
  t.match(event.data, {
    object: 'webhook_event',
    id: eventId,
    type: 'suppression.added',
    status: 'success',
    next_attempt_at: null,
    payload: { type: 'suppression.added', data: { email: 'sdk@example.com' } },
  });
  const attempts = await resend.webhooks.events.attempts.list({ webhookId, eventId });
  t.match(attempts.data, {
    object: 'list',
    has_more: false,
    data: [{ id: String, http_status_code: 200, response: 'ok', sent_at: String }],
  });
  const replayed = await resend.webhooks.events.replay({ webhookId, eventId });
  t.match(replayed.data, { object: 'webhook_event', id: eventId });
  await until(
    async () =>
      (await resend.webhooks.events.attempts.list({ webhookId, eventId })).data!.data.length === 2 ? true : undefined,
    'the replay',
  );

  const delivered = receiver.received.filter((w) => w.path === '/sdk-events').at(-1)!;
  const verified = resend.webhooks.verify({
    payload: delivered.body,
    headers: {
      id: String(delivered.headers['webhook-id']),
      timestamp: String(delivered.headers['webhook-timestamp']),
      signature: String(delivered.headers['webhook-signature']),
    },
    webhookSecret: created.data!.signing_secret,
  });
  t.match(verified, { type: 'suppression.added', data: { email: 'sdk@example.com' } });
});

t.test('refusals come back as SDK errors with the spec name', async (t) => {
  // A type of the SDK's WebhookEvent that the appliance does not record (no topic events here).
  const bad = await resend.webhooks.create({ endpoint: receiver.url(), events: ['topic.created'] });
  t.match(bad.error, { statusCode: 422, name: 'validation_error' });
});
