import t from 'tap';
import { EVENT_TYPES } from '../../core/events/log/event.types.js';
import { TestDnsServer } from '../helpers/dns-server.js';
import { request } from '../helpers/http.js';
import { addVerifiedDomain } from '../helpers/verified-domain.js';
import { startWebhookApp, WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * What each event type POSTs: the envelope with `data` exactly as recorded; email.* carry the
 * email fields and their extra key, domain.* and suppression.* the resource's public shape.
 */
const dns = await TestDnsServer.start();
const receiver = await WebhookReceiver.start();
const fx = await startWebhookApp({ env: { MAILROOM_DNS_SERVERS: dns.address } });
t.teardown(async () => {
  await fx.close();
  await receiver.down();
  await dns.close();
});
const { app, team } = fx;
const call = (method: string, path: string, body?: unknown) =>
  request(app.url, path, { method, token: team.token, body });
await app.runtime.services.teams.setTier(team.teamId, 2);
await fx.createEndpoint(receiver.url('/all'), [...EVENT_TYPES]);

/** The bodies received of one type, parsed, once `count` of them arrived. */
async function received(
  type: string,
  count = 1,
): Promise<Array<{ type: string; created_at: string; data: Record<string, any> }>> {
  for (let i = 0; i < 400; i++) {
    const bodies = receiver.received.map((w) => JSON.parse(w.body)).filter((b) => b.type === type);
    if (bodies.length >= count) return bodies;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no ${type} delivered`);
}

t.test('every delivered body is { type, created_at, data } of the recorded event, unchanged', async (t) => {
  await addVerifiedDomain(app, dns, team.token, 'payloads.test');
  await call('POST', '/suppressions', { email: 'blocked@example.net' });
  await call('POST', '/emails', {
    from: 'a@payloads.test',
    to: ['blocked@example.net', 'ok@example.net'],
    subject: 'S',
    text: 'T',
    tags: [{ name: 'k', value: 'v' }],
  });
  const scheduled = await call('POST', '/emails', {
    from: 'a@payloads.test',
    to: 'later@example.net',
    subject: 'Later',
    text: 'T',
    scheduled_at: 'in 1 hour',
  });
  await call('POST', `/emails/${scheduled.body.id}/cancel`);
  await app.runtime.services.deliveries.handOver();
  await received('email.sent');
  await received('email.canceled');
  const events = await app.runtime.services.eventLog.list(team.teamId, { limit: 1000 });
  await receiver.waitFor(events.length);
  t.equal(receiver.received.length, events.length, 'one delivery per recorded event');
  for (const w of receiver.received) {
    const event = events.find((e) => e.id === w.headers['webhook-id'])!;
    t.equal(
      w.body,
      JSON.stringify({ type: event.type, created_at: event.createdAt.toISOString(), data: event.data }),
      `${event.type}: the recorded data`,
    );
  }
});

t.test('email.* data: the email fields, recipients the event is about, tags, and the extra key', async (t) => {
  const [suppressed] = await received('email.suppressed');
  t.match(suppressed!.data, {
    email_id: String,
    from: 'a@payloads.test',
    to: ['blocked@example.net'],
    subject: 'S',
    message_id: String,
    created_at: String,
    tags: { k: 'v' },
    suppressed: { reason: 'suppressed', type: 'suppression_list', message: String, diagnosticCode: [] },
  });
  const [sent] = await received('email.sent');
  t.same(Object.keys(sent!.data).sort(), ['created_at', 'email_id', 'from', 'message_id', 'subject', 'tags', 'to']);
  const [scheduled] = await received('email.scheduled');
  t.match(scheduled!.data, { to: ['later@example.net'], subject: 'Later' });
  t.notOk('tags' in scheduled!.data, 'no tags key when the email had none');
  const [canceled] = await received('email.canceled');
  t.equal(canceled!.data.email_id, scheduled!.data.email_id);
});

t.test('domain.* and suppression.* data is the resource as the API answers it', async (t) => {
  const created = await call('POST', '/domains', { name: 'shape.test' });
  const createdEvents = await received('domain.created', 2);
  t.same(createdEvents.at(-1)!.data, created.body, 'domain.created carries the create response');
  await call('PATCH', `/domains/${created.body.id}`, { open_tracking: true });
  const updated = (await received('domain.updated', 2)).find((b) => b.data.id === created.body.id)!;
  t.same(
    updated.data,
    (await call('GET', `/domains/${created.body.id}`)).body,
    'domain.updated carries the domain after the change',
  );
  const before = (await call('GET', `/domains/${created.body.id}`)).body;
  await call('DELETE', `/domains/${created.body.id}`);
  const [deleted] = await received('domain.deleted');
  t.same(deleted!.data, before, 'domain.deleted carries the domain as it was');
  const [added] = await received('suppression.added');
  t.same(
    added!.data,
    (await call('GET', `/suppressions/${added!.data.id}`)).body,
    'suppression.added is the suppression',
  );
  await call('DELETE', '/suppressions/blocked@example.net');
  const [removed] = await received('suppression.removed');
  t.same(removed!.data, added!.data, 'suppression.removed carries it as it was');
});
