import t from 'tap';
import { errorShape, request } from '../helpers/http.js';
import { startWebhookApp, WebhookReceiver, type WebhookApp } from '../helpers/webhook-receiver.js';

/** Failed attempts are retried on the schedule, with the same webhook-id, until one succeeds. */
const receiver = await WebhookReceiver.start();
const fx = await startWebhookApp({
  webhooks: { retrySchedule: [0.3, 0.3, 0.5, 0.5, 1, 1, 1, 1, 1, 1, 1, 1], timeoutMs: 1000, maxResponseBytes: 1024 },
});
t.teardown(async () => {
  await fx.close();
  await receiver.down();
});

const get = (app: WebhookApp, token: string, path: string) => request(app.app.url, path, { token }).then((r) => r.body);

async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A team with one endpoint on `path` for suppression.added, and `count` events for it. */
async function eventsFor(app: WebhookApp, path: string, count: number, target = receiver) {
  const team = await app.app.createTeam(path, 'unlimited');
  const { id } = await app.createEndpoint(target.url(path), ['suppression.added'], team.token);
  const emails = Array.from({ length: count }, (_, i) => `r${i}@example.com`);
  await app.app.runtime.services.suppressions.addMany(team.teamId, emails);
  const events = await app.app.runtime.services.eventLog.list(team.teamId, { type: 'suppression.added' });
  return { team, id, eventIds: events.map((e) => e.id) };
}

t.test(
  'a receiver that is down (refused, then 503) and comes back gets every event, same webhook-id each retry',
  async (t) => {
    const down = await WebhookReceiver.start();
    await down.down();
    const { team, id, eventIds } = await eventsFor(fx, '/flaky', 10, down);
    const attemptsOf = async (eventId: string) =>
      (await get(fx, team.token, `/webhooks/${id}/events/${eventId}/attempts`)).data as Array<{
        http_status_code: number;
        error: string | null;
      }>;
    await waitUntil(
      async () => (await Promise.all(eventIds.map(attemptsOf))).every((a) => a.length >= 2),
      'two refused attempts each',
    );
    t.match(
      (await attemptsOf(eventIds[0]!))[0],
      { http_status_code: 0, error: /ECONNREFUSED/ },
      'connection refused recorded',
    );
    t.equal((await get(fx, team.token, `/webhooks/${id}/events/${eventIds[0]}`)).status, 'attempting');
    down.status = 503;
    await down.up();
    // Wait for the recorded 503 attempts (not merely requests seen): a request in flight when the
    // status flips to 200 would otherwise be answered 200 and never retried.
    await waitUntil(
      async () => (await Promise.all(eventIds.map(attemptsOf))).every((a) => a.some((x) => x.http_status_code === 503)),
      '503s for every event',
    );
    down.status = 200;
    await waitUntil(
      async () =>
        (await get(fx, team.token, `/webhooks/${id}/events?limit=100`)).data.every(
          (e: { status: string }) => e.status === 'success',
        ),
      'every event succeeded',
    );
    for (const eventId of eventIds) {
      const seen = down.received.filter((w) => w.headers['webhook-id'] === eventId);
      t.ok(seen.length >= 2, `${eventId}: retried (${seen.length} requests)`);
      t.equal(new Set(seen.map((w) => w.body)).size, 1, 'same body on every retry');
      const attempts = await attemptsOf(eventId);
      t.equal(attempts[0]!.http_status_code, 200, 'last attempt succeeded');
      t.ok(
        attempts.some((a) => a.http_status_code === 503),
        '503 recorded',
      );
    }
    const ids = new Set(down.received.map((w) => w.headers['webhook-id']));
    t.same([...ids].sort(), [...eventIds].sort(), 'every event arrived, none lost, no other id');
    await down.down();
  },
);

t.test('the schedule runs out: failed after n + 1 attempts, each recorded with status and bounded body', async (t) => {
  const failing = await WebhookReceiver.start();
  failing.status = 500;
  failing.responseBody = 'x'.repeat(100_000);
  const short = await startWebhookApp({
    webhooks: { retrySchedule: [0.1, 0.1], maxResponseBytes: 1024, disableAfterSeconds: 3600 },
  });
  t.teardown(async () => {
    await short.close();
    await failing.down();
  });
  const { team, id, eventIds } = await eventsFor(short, '/fails', 1, failing);
  const path = `/webhooks/${id}/events/${eventIds[0]}`;
  await waitUntil(async () => (await get(short, team.token, path)).status === 'failed', 'failed');
  const attempts = (await get(short, team.token, `${path}/attempts`)).data;
  t.equal(attempts.length, 3, 'schedule of two delays: three attempts');
  for (const a of attempts) t.match(a, { http_status_code: 500, error: null, response: 'x'.repeat(1024) });
  t.equal(attempts[0].response.length, 1024, 'response kept up to webhooks.maxResponseBytes');
  t.match(await get(short, team.token, path), { status: 'failed', attempts: 3, next_attempt_at: null });
  t.equal((await get(short, team.token, `/webhooks/${id}`)).status, 'enabled', 'one failed event does not disable');
});

t.test('a timeout is a failed attempt; redirects are not followed', async (t) => {
  const slow = await WebhookReceiver.start();
  slow.delayMs = 3000;
  const { team, id, eventIds } = await eventsFor(fx, '/slow', 1, slow);
  const path = `/webhooks/${id}/events/${eventIds[0]}/attempts`;
  await waitUntil(async () => (await get(fx, team.token, path)).data.length >= 1, 'an attempt');
  t.match((await get(fx, team.token, path)).data.at(-1), { http_status_code: 0, error: 'timed out after 1000 ms' });
  await fx.app.runtime.db.knex('webhook_endpoints').where({ id }).update({ status: 'disabled' });
  await slow.down();

  const redirecting = await WebhookReceiver.start();
  redirecting.status = 302;
  const moved = await eventsFor(fx, '/moved', 1, redirecting);
  const movedPath = `/webhooks/${moved.id}/events/${moved.eventIds[0]}/attempts`;
  await waitUntil(async () => (await get(fx, moved.team.token, movedPath)).data.length >= 2, 'two attempts');
  t.match((await get(fx, moved.team.token, movedPath)).data.at(-1), { http_status_code: 302 });
  t.ok(
    redirecting.received.every((w) => w.path === '/moved'),
    'only the endpoint itself was requested',
  );
  await fx.app.runtime.db.knex('webhook_endpoints').where({ id: moved.id }).update({ status: 'disabled' });
  await redirecting.down();
});

t.test(
  'an endpoint failing every attempt for disableAfterSeconds is disabled; enabling it and replaying delivers',
  async (t) => {
    const broken = await WebhookReceiver.start();
    broken.status = 500;
    const strict = await startWebhookApp({
      webhooks: {
        retrySchedule: [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2],
        disableAfterSeconds: 1,
      },
    });
    t.teardown(async () => {
      await strict.close();
      await broken.down();
    });
    const { team, id, eventIds } = await eventsFor(strict, '/broken', 3, broken);
    await waitUntil(async () => (await get(strict, team.token, `/webhooks/${id}`)).status === 'disabled', 'disabled');
    const log = (await get(strict, team.token, `/webhooks/${id}/events`)).data;
    t.ok(
      log.every((e: { status: string }) => e.status === 'failed'),
      'its waiting deliveries ended as failed',
    );
    const refused = await request(strict.app.url, `/webhooks/${id}/events/${eventIds[0]}/replay`, {
      method: 'POST',
      token: team.token,
    });
    errorShape(t, refused, 422, 'validation_error');
    const since = await strict.app.runtime.db.knex('webhook_endpoints').where({ id }).first();
    t.equal(since.disabled_reason, 'failing');
    broken.status = 200;
    t.equal(
      (
        await request(strict.app.url, `/webhooks/${id}`, {
          method: 'PATCH',
          token: team.token,
          body: { status: 'enabled' },
        })
      ).status,
      200,
    );
    const seenBefore = broken.received.length;
    const replay = await request(strict.app.url, `/webhooks/${id}/events/${eventIds[0]}/replay`, {
      method: 'POST',
      token: team.token,
    });
    t.equal(replay.status, 200);
    await waitUntil(
      async () => (await get(strict, team.token, `/webhooks/${id}/events/${eventIds[0]}`)).status === 'success',
      'replayed',
    );
    t.same(
      broken.received.slice(seenBefore).map((w) => w.headers['webhook-id']),
      [eventIds[0]],
      'only the replayed event was sent again',
    );
    t.equal((await get(strict, team.token, `/webhooks/${id}`)).status, 'enabled', 'a success keeps it enabled');
  },
);
