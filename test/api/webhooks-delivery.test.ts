import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import t from 'tap';
import { signatureHeader } from '../../core/events/webhooks/webhook-signature.js';
import { request } from '../helpers/http.js';
import { startWebhookApp, WebhookReceiver, type ReceivedWebhook } from '../helpers/webhook-receiver.js';

/**
 * 1,000 real deliveries to a loopback receiver, by two workers sharing the outbox: each event
 * arrives once, and every one verifies with the standardwebhooks and svix packages, unchanged.
 */
const receiver = await WebhookReceiver.start();
const fx = await startWebhookApp({ workers: 2 });
t.teardown(async () => {
  await fx.close();
  await receiver.down();
});

const headersOf = (w: ReceivedWebhook) => ({
  'webhook-id': String(w.headers['webhook-id']),
  'webhook-timestamp': String(w.headers['webhook-timestamp']),
  'webhook-signature': String(w.headers['webhook-signature']),
});
/** Whether a library accepts the message: verify throws on any mismatch. */
const accepts = (verify: () => unknown) => {
  try {
    verify();
    return true;
  } catch {
    return false;
  }
};

/** Waits until `count` deliveries succeeded (the receiver sees a request before its attempt commits). */
async function settled(count: number) {
  const knex = fx.app.runtime.db.knex;
  for (let i = 0; i < 600; i++) {
    const row = (await knex('webhook_deliveries').where({ status: 'success' }).count({ n: '*' }).first()) as {
      n: number | string;
    };
    if (Number(row.n) >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`fewer than ${count} deliveries succeeded`);
}

const { secret } = await fx.createEndpoint(receiver.url(), ['suppression.added']);

t.test('1,000 events: each delivered once, all verify with standardwebhooks and svix', async (t) => {
  for (let batch = 0; batch < 10; batch++) {
    const emails = Array.from({ length: 100 }, (_, i) => `user-${batch}-${i}@example.com`);
    const res = await request(fx.app.url, '/suppressions/batch/add', {
      method: 'POST',
      token: fx.team.token,
      body: { emails },
    });
    t.equal(res.status, 201);
  }
  await receiver.waitFor(1000, 150_000);
  await settled(1000);
  const ids = receiver.received.map((w) => String(w.headers['webhook-id']));
  t.equal(new Set(ids).size, 1000, '1,000 distinct webhook-ids');
  // Two workers claimed from one outbox: every request the receiver saw is one recorded attempt
  // (no claim was sent twice), and each event took one attempt.
  const attempts = await fx.app.runtime.db.knex('webhook_attempts').select('status_code');
  t.equal(receiver.received.length, attempts.length, 'one request per recorded attempt');
  t.equal(attempts.filter((a) => Number(a.status_code) === 200).length, 1000, '1,000 attempts answered 200');
  t.equal(receiver.received.length, 1000, 'no event delivered twice');
  const standard = new StandardWebhook(secret);
  const svix = new SvixWebhook(secret);
  let standardOk = 0;
  let svixOk = 0;
  for (const w of receiver.received) {
    if (accepts(() => standard.verify(w.body, headersOf(w)))) standardOk++;
    if (accepts(() => svix.verify(w.body, headersOf(w)))) svixOk++;
  }
  t.equal(standardOk, 1000, 'standardwebhooks verifies all 1,000');
  t.equal(svixOk, 1000, 'svix verifies all 1,000');
  const first = receiver.received[0]!;
  t.equal(first.headers['user-agent'], 'Service-Webhooks/1.0');
  t.match(first.headers['content-type'], /^application\/json/);
  t.match(first.headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/, 'one v1 entry outside a rotation');
  t.ok(Math.abs(Number(first.headers['webhook-timestamp']) - Date.now() / 1000) < 120, 'timestamp is Unix seconds');
});

t.test('the payload is the recorded event: type, created_at, data', async (t) => {
  const events = new Map(
    (await fx.app.runtime.services.eventLog.list(fx.team.teamId, { limit: 2000 })).map((e) => [e.id, e]),
  );
  let same = 0;
  for (const w of receiver.received) {
    const event = events.get(String(w.headers['webhook-id']))!;
    const body = JSON.parse(w.body);
    if (
      JSON.stringify(body) ===
      JSON.stringify({ type: event.type, created_at: event.createdAt.toISOString(), data: event.data })
    )
      same++;
  }
  t.equal(same, 1000, 'every body is { type, created_at, data } of its event, byte for byte');
  const sample = JSON.parse(receiver.received[0]!.body);
  t.match(sample, {
    type: 'suppression.added',
    data: { object: 'suppression', id: String, email: String, origin: 'manual', source_id: null, created_at: String },
  });
});

t.test('tampered body, id or timestamp, and a timestamp 301 s old, are rejected by both', async (t) => {
  const w = receiver.received[0]!;
  const headers = headersOf(w);
  const libraries = { standardwebhooks: new StandardWebhook(secret), svix: new SvixWebhook(secret) };
  for (const [name, lib] of Object.entries(libraries)) {
    t.ok(
      accepts(() => lib.verify(w.body, headers)),
      `${name}: the original verifies`,
    );
    t.notOk(
      accepts(() => lib.verify(w.body.replace('"suppression.added"', '"suppression.removed"'), headers)),
      `${name}: tampered body`,
    );
    t.notOk(
      accepts(() => lib.verify(`${w.body} `, headers)),
      `${name}: one byte added`,
    );
    t.notOk(
      accepts(() =>
        lib.verify(w.body, { ...headers, 'webhook-id': receiver.received[1]!.headers['webhook-id'] as string }),
      ),
      `${name}: another id`,
    );
    t.notOk(
      accepts(() =>
        lib.verify(w.body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) }),
      ),
      `${name}: tampered timestamp`,
    );
    const now = Math.floor(Date.now() / 1000);
    for (const [age, expected] of [
      [0, true],
      [301, false],
    ] as const) {
      const signed = {
        ...headers,
        'webhook-timestamp': String(now - age),
        'webhook-signature': signatureHeader([secret], headers['webhook-id'], now - age, w.body),
      };
      t.equal(
        accepts(() => lib.verify(w.body, signed)),
        expected,
        `${name}: correctly signed, ${age} s old: ${expected ? 'accepted' : 'rejected'}`,
      );
    }
  }
});

t.test('the delivery log shows every event as success with one attempt', async (t) => {
  const { id } = (await request(fx.app.url, '/webhooks', { token: fx.team.token })).body.data[0];
  const page = await request(fx.app.url, `/webhooks/${id}/events?limit=100`, { token: fx.team.token });
  t.equal(page.status, 200);
  t.equal(page.body.data.length, 100);
  t.equal(page.body.has_more, true);
  t.ok(page.body.data.every((e: { status: string }) => e.status === 'success'));
  const attempts = await request(fx.app.url, `/webhooks/${id}/events/${page.body.data[0].id}/attempts`, {
    token: fx.team.token,
  });
  t.match(attempts.body, {
    object: 'list',
    has_more: false,
    data: [{ http_status_code: 200, response: 'ok', error: null }],
  });
});
