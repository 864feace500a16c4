import t, { type Test } from 'tap';
import { errorShape, request, type HttpResponse } from '../helpers/http.js';
import { redisServerOrSkip, startSentinelGroup, waitFor, type SentinelGroup } from '../helpers/redis-sentinel.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The API's rate limit on Redis behind a sentinel (redis.sentinels, redis.name, redis.password),
 * across a failover of its primary. Every answer is 2xx, 429 rate_limit_exceeded or 503 with the
 * spec's error body, never a 500 nor a request left hanging; once the sentinel has promoted the
 * replica, the limit applies again, from the bucket on the new primary.
 */

const RATE = 5;
/** No request may take longer than this (a hung request would otherwise stall the test). */
const REQUEST_BOUND_MS = 15_000;

type Phase = { ok: number; limited: number; unavailable: number };
/** Answers until the sentinel named the new primary (and it said ROLE master), and after. */
type Tally = {
  before: Phase;
  after: Phase;
  /** Each answer outside the three expected ones, and how often. */
  other: Record<string, number>;
  last429?: HttpResponse;
  first503?: HttpResponse;
};

async function startApp(t: Test): Promise<{ group: SentinelGroup; app: TestApp; prefix: string }> {
  const group = await startSentinelGroup();
  const prefix = `mailroom-test-failover:${process.pid}:${Math.random().toString(36).slice(2, 8)}:`;
  let app: TestApp;
  try {
    app = await startTestApp({
      rateLimitPerSecond: RATE,
      env: {
        MAILROOM_REDIS_SENTINELS: group.sentinels.join(','),
        MAILROOM_REDIS_NAME: group.name,
        MAILROOM_REDIS_PASSWORD: group.password,
        MAILROOM_REDIS_KEY_PREFIX: prefix,
      },
    });
  } catch (err) {
    await group.stop();
    throw err;
  }
  t.teardown(async () => {
    await app.close();
    await group.stop();
  });
  return { group, app, prefix };
}

/** GET /team one request after the other until stopped, each answer counted by phase. */
function requestInLoop(app: TestApp, token: string) {
  const phase = (): Phase => ({ ok: 0, limited: 0, unavailable: 0 });
  const tally: Tally = { before: phase(), after: phase(), other: {} };
  const unexpected = (what: string) => {
    tally.other[what] = (tally.other[what] ?? 0) + 1;
  };
  const state = { switched: false, stopped: false };
  const done = (async () => {
    while (!state.stopped) {
      const res = await Promise.race([
        request(app.url, '/team', { token }),
        new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), REQUEST_BOUND_MS).unref()),
      ]).catch((err: Error) => err);
      const counts = state.switched ? tally.after : tally.before;
      if (res === 'hung') unexpected(`no answer within ${REQUEST_BOUND_MS} ms`);
      else if (res instanceof Error) unexpected(`request failed: ${res.message}`);
      else if (res.status >= 200 && res.status < 300) counts.ok++;
      else if (res.status === 429 && res.body?.name === 'rate_limit_exceeded') {
        counts.limited++;
        tally.last429 = res;
      } else if (res.status === 503 && res.body?.name === 'service_unavailable') {
        counts.unavailable++;
        tally.first503 ??= res;
      } else unexpected(`${res.status}: ${res.text.slice(0, 200)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return { tally, state, done };
}

async function acrossFailover(t: Test, trigger: (group: SentinelGroup) => Promise<void>): Promise<Tally> {
  const { group, app, prefix } = await startApp(t);
  const { token, teamId } = await app.createTeam('Failover');
  const bucket = `${prefix}rate:team:${teamId}`;

  const burst = await Promise.all(Array.from({ length: 3 * RATE }, () => request(app.url, '/team', { token })));
  t.ok(burst.filter((r) => r.status === 200).length >= 1, 'before the failover: requests pass');
  t.ok(burst.filter((r) => r.status === 429).length >= 1, 'and a burst over the bucket is refused');
  t.equal(await group.direct(group.initialPrimary).exists(bucket), 1, "the team's bucket is on the first primary");

  const loop = requestInLoop(app, token);
  t.teardown(() => {
    loop.state.stopped = true;
  });
  await waitFor('requests before the failover', async () =>
    loop.tally.before.ok + loop.tally.before.limited >= 20 ? true : undefined,
  );
  await trigger(group);
  await group.waitForPrimary(group.initialReplica);
  const promoted = group.direct(group.initialReplica);
  const [seconds, micros] = await promoted.time();
  const promotedAt = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  loop.state.switched = true;
  // The API's store has moved once requests pass, and are refused for the rate, again.
  const moved = await waitFor('passed and refused requests through the new primary', async () =>
    loop.tally.after.ok >= 1 && loop.tally.after.limited >= 5 ? true : undefined,
  ).catch((err: Error) => err);
  loop.state.stopped = true;
  await loop.done;

  const { tally } = loop;
  t.comment(`answers: ${JSON.stringify({ before: tally.before, after: tally.after, other: tally.other })}`);
  if (moved instanceof Error) throw moved;
  t.same(tally.other, {}, 'every answer was 2xx, 429 rate_limit_exceeded or 503 service_unavailable');
  t.ok(tally.after.ok >= 1, `requests pass after the failover (${tally.after.ok})`);
  t.ok(tally.after.limited >= 5, `and the limit refuses again (${tally.after.limited} refusals)`);
  errorShape(t, tally.last429!, 429, 'rate_limit_exceeded');
  t.ok(Number(tally.last429!.headers.get('retry-after')) >= 1, 'with retry-after');

  t.equal(await group.role(group.initialReplica), 'master', 'ROLE on the promoted replica: master');
  // The bucket's `updated` is the Redis TIME of its last take: on the new primary, since it was one.
  const updated = Number(await promoted.hget(bucket, 'updated'));
  t.ok(updated >= promotedAt, "the team's bucket on the new primary was taken from after its promotion");
  const ready = await request(app.url, '/ready');
  t.equal(ready.status, 200, 'readiness: Redis is reachable again');
  return tally;
}

if (redisServerOrSkip(t)) {
  t.test('the primary killed: 503 while there is none, never 500; then the limit applies again', async (t) => {
    const tally = await acrossFailover(t, (group) => group.kill(group.initialPrimary));
    // For at least down-after-milliseconds no primary is reachable: those requests are 503. Then
    // the API must come back by itself: ioredis could end its client for good here (see the
    // 'end' handler of RedisKeyValueStore), and every later request was 503 until a restart.
    t.ok(tally.before.unavailable + tally.after.unavailable >= 1, 'requests without a primary are answered 503');
    errorShape(t, tally.first503!, 503, 'service_unavailable');
  });

  t.test('SENTINEL FAILOVER: never 500; then the limit applies again', async (t) => {
    const tally = await acrossFailover(t, async (group) => {
      t.equal(await group.failover(), 'OK', 'SENTINEL FAILOVER accepted');
    });
    if (tally.first503) errorShape(t, tally.first503, 503, 'service_unavailable');
  });
}
