import { once } from 'node:events';
import { Redis } from 'ioredis';
import t, { type Test } from 'tap';
import { errorResult } from '../../api/app.js';
import type { RequestState } from '../../api/pipeline.js';
import { createKeyValueStore } from '../../lib/kv/create-kv.js';
import type { KeyValueStore, TokenBucketResult } from '../../lib/kv/kv.js';
import { RedisUnavailableError } from '../../lib/kv/redis-kv.js';
import { createLogger } from '../../lib/logger.js';
import { redisServerOrSkip, startSentinelGroup, waitFor, type SentinelGroup } from '../helpers/redis-sentinel.js';

/**
 * RedisKeyValueStore through Redis Sentinel, against real processes: a primary, its replica and
 * one sentinel (quorum 1, down-after 1 s). The store finds the primary by asking the sentinel,
 * follows a failover, and while it moves every call either succeeds or fails as the API answers
 * 503 (retry with backoff): never a 500, never a READONLY reply, never a call that hangs.
 */

const silent = createLogger('silent');
/** The status the API answers for an error: the very function its error handling calls. */
const statusFor = (err: unknown) =>
  errorResult(err, { requestId: 'test', path: '/test' } as RequestState, silent).status;

/** No call may take longer: a command queued behind a reconnect is given up after one retry. */
const CALL_BOUND_MS = 10_000;

async function startGroup(t: Test): Promise<{ group: SentinelGroup; kv: KeyValueStore; prefix: string }> {
  const group = await startSentinelGroup();
  const prefix = `mailroom-test-sentinel:${process.pid}:`;
  const kv = createKeyValueStore({
    sentinels: group.sentinels,
    name: group.name,
    password: group.password,
    keyPrefix: prefix,
  });
  t.teardown(async () => {
    await kv.close();
    await group.stop();
  });
  return { group, kv, prefix };
}

/** `other`: each unexpected outcome (the status the API would answer and the message) and how often. */
type Outcomes = { ok: number; okAfterSwitch: number; unavailable: number; hung: number; other: Record<string, number> };

/**
 * Calls takeToken and incrementUpTo in turn, 5 ms apart, until stopped; each outcome counted.
 * `lastCount` is the last value incrementUpTo returned.
 */
function callInLoop(kv: KeyValueStore) {
  const outcomes: Outcomes = { ok: 0, okAfterSwitch: 0, unavailable: 0, hung: 0, other: {} };
  const state = { switched: false, stopped: false, lastCount: 0 };
  const bounded = <T>(call: Promise<T>) =>
    Promise.race([call, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), CALL_BOUND_MS).unref())]);
  const done = (async () => {
    for (let i = 0; !state.stopped; i++) {
      try {
        const call: Promise<TokenBucketResult | number | null> =
          i % 2 === 0
            ? kv.takeToken('loop-bucket', 1_000_000, 1_000_000)
            : kv.incrementUpTo('loop-count', 1, Number.MAX_SAFE_INTEGER, 600_000);
        const result = await bounded(call);
        if (result === 'hung') outcomes.hung++;
        else {
          outcomes.ok++;
          if (state.switched) outcomes.okAfterSwitch++;
          if (typeof result === 'number') state.lastCount = result;
        }
      } catch (err) {
        if (statusFor(err) === 503) outcomes.unavailable++;
        else {
          const outcome = `${statusFor(err)}: ${(err as Error).message}`;
          outcomes.other[outcome] = (outcomes.other[outcome] ?? 0) + 1;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return { outcomes, state, done };
}

/**
 * State the rate limits keep, written before the failover: an emptied bucket (5 tokens, refilled
 * at one per 1000 s, so it stays empty for the test) and a counter at its limit.
 */
async function writeLimitState(t: Test, kv: KeyValueStore) {
  for (let i = 0; i < 5; i++) t.equal((await kv.takeToken('before', 5, 0.001)).allowed, true, `token ${i + 1} of 5`);
  t.equal((await kv.takeToken('before', 5, 0.001)).allowed, false, 'the bucket is empty');
  for (let i = 1; i <= 3; i++) t.equal(await kv.incrementUpTo('before-count', 1, 3, 600_000), i);
  t.equal(await kv.incrementUpTo('before-count', 1, 3, 600_000), null, 'the counter is at its limit');
}

/**
 * The rate-limit correctness window. Replication is asynchronous: a write the primary has
 * acknowledged reaches the replica a moment later. Here WAIT 1 made the replica acknowledge all
 * of it before the failover, so the promoted replica holds it and the limits still refuse.
 * Without that (a primary that dies unplanned), the writes of the last replication lag before
 * it died can be lost with it: a bucket gets back at most the tokens taken in that window, a
 * counter loses at most the increments of that window; nothing older is lost, and nothing is
 * ever given beyond a full bucket.
 */
async function assertLimitStateSurvived(t: Test, group: SentinelGroup, kv: KeyValueStore, prefix: string) {
  const promoted = group.direct(group.initialReplica);
  t.equal(await promoted.exists(`${prefix}before`), 1, 'the bucket is on the new primary');
  t.ok(Number(await promoted.hget(`${prefix}before`, 'tokens')) < 1, 'and still empty there');
  t.equal(await promoted.get(`${prefix}before-count`), '3', 'the counter is on the new primary, at its limit');
  t.equal((await kv.takeToken('before', 5, 0.001)).allowed, false, 'the emptied bucket still refuses');
  t.equal(await kv.incrementUpTo('before-count', 1, 3, 600_000), null, 'the full counter still refuses');
}

async function acrossFailover(
  t: Test,
  trigger: (group: SentinelGroup) => Promise<void>,
  afterwards: (group: SentinelGroup) => Promise<void>,
): Promise<Outcomes> {
  const { group, kv, prefix } = await startGroup(t);
  await writeLimitState(t, kv);
  const acked = await group.direct(group.initialPrimary).call('WAIT', '1', '1000');
  t.equal(acked, 1, 'WAIT: the replica has every write so far');

  const loop = callInLoop(kv);
  t.teardown(() => {
    loop.state.stopped = true;
  });
  await waitFor('calls through the first primary', async () => (loop.outcomes.ok >= 20 ? true : undefined));
  await trigger(group);
  await group.waitForPrimary(group.initialReplica);
  loop.state.switched = true;
  await waitFor('calls through the new primary', async () => (loop.outcomes.okAfterSwitch >= 20 ? true : undefined));
  loop.state.stopped = true;
  await loop.done;

  const { outcomes } = loop;
  t.same(outcomes.other, {}, 'no call failed with anything but an error the API answers 503');
  t.equal(outcomes.hung, 0, `no call took longer than ${CALL_BOUND_MS} ms`);
  t.ok(outcomes.okAfterSwitch >= 20, `calls succeed through the new primary (${outcomes.okAfterSwitch})`);
  t.comment(`outcomes: ${JSON.stringify(outcomes)}`);

  t.equal(await group.role(group.initialReplica), 'master', 'ROLE on the promoted replica: master');
  await afterwards(group);
  const promoted = group.direct(group.initialReplica);
  t.equal(
    await promoted.get(`${prefix}loop-count`),
    String(loop.state.lastCount),
    'the counter on the new primary is the one the store last answered: its writes land there',
  );
  t.equal(await kv.setIfAbsent('after', 'written', 600_000), true);
  t.equal(await promoted.get(`${prefix}after`), 'written', 'a write after the failover is on the new primary');
  await assertLimitStateSurvived(t, group, kv, prefix);
  return outcomes;
}

if (redisServerOrSkip(t)) {
  t.test('through the sentinel: the store uses the primary the sentinel names', async (t) => {
    const { group, kv, prefix } = await startGroup(t);
    t.equal(kv.kind, 'redis');

    const first = await kv.takeToken('bucket', 2, 0.001);
    t.match(first, { allowed: true, remaining: 1 });
    t.match(await kv.takeToken('bucket', 2, 0.001), { allowed: true, remaining: 0 });
    t.match(await kv.takeToken('bucket', 2, 0.001), { allowed: false, remaining: 0 }, 'the third take is refused');

    t.equal(await kv.setIfAbsent('once', 'first', 600_000), true);
    t.equal(await kv.setIfAbsent('once', 'second', 600_000), false, 'set only if absent');
    t.equal(await kv.get('once'), 'first');

    t.equal(await kv.incrementUpTo('count', 2, 3, 600_000), 2);
    t.equal(await kv.incrementUpTo('count', 2, 3, 600_000), null, 'past the limit: refused, unchanged');
    t.equal(await kv.incrementUpTo('count', 1, 3, 600_000), 3);

    t.equal(await group.primaryPort(), group.initialPrimary, 'the sentinel names the first server');
    t.equal(await group.role(group.initialPrimary), 'master');
    t.equal(await group.role(group.initialReplica), 'slave');
    const primary = group.direct(group.initialPrimary);
    t.equal(await primary.get(`${prefix}once`), 'first', 'the writes are on that primary');
    t.equal(await primary.get(`${prefix}count`), '3');
    t.equal(await primary.hexists(`${prefix}bucket`, 'tokens'), 1);
  });

  t.test('a planned failover (SENTINEL FAILOVER): no error but 503, writes on the new primary', async (t) => {
    const outcomes = await acrossFailover(
      t,
      async (group) => {
        t.equal(await group.failover(), 'OK', 'SENTINEL FAILOVER accepted');
      },
      async (group) => {
        // The sentinel turns the old primary into a replica of the new one.
        await waitFor('the old primary to be demoted', async () =>
          (await group.role(group.initialPrimary)) === 'slave' ? true : undefined,
        );
        t.pass('ROLE on the old primary: slave');
      },
    );
    t.ok(outcomes.ok > outcomes.okAfterSwitch, 'calls succeeded before the failover too');
  });

  t.test('an unplanned failover (primary killed): no error but 503, writes on the new primary', async (t) => {
    const outcomes = await acrossFailover(
      t,
      (group) => group.kill(group.initialPrimary),
      async () => undefined,
    );
    // For at least down-after-milliseconds there is no primary: calls in that time fail fast.
    t.ok(
      outcomes.unavailable > 0,
      `calls while no primary was reachable were refused as 503 (${outcomes.unavailable})`,
    );
  });

  t.test('a client ioredis ended under the store is connected again; one close() ended stays ended', async (t) => {
    // In an unplanned failover ioredis can end its client for good (the failover detector left
    // by the lost connection disconnects the connector while a reconnect asks the sentinels;
    // the API then answered 503 until restarted). Here the client is ended the same way: from
    // under the store, not by close().
    const { group, kv, prefix } = await startGroup(t);
    const client = (kv as unknown as { redis: Redis }).redis;
    t.equal((await kv.takeToken('ended', 3, 0.001)).remaining, 2);
    const ended = once(client, 'end');
    client.disconnect();
    await ended;
    t.equal(client.status, 'end', "the store's client has ended");
    const refused = await kv.takeToken('ended', 3, 0.001).catch((err: unknown) => err);
    t.ok(refused instanceof RedisUnavailableError, 'meanwhile calls are refused as Redis unavailable');
    t.equal(statusFor(refused), 503);
    const taken = await waitFor('the store to connect again', () =>
      kv.takeToken('ended', 3, 0.001).catch(() => undefined),
    );
    t.equal(taken.remaining, 1, 'connected again, to the same bucket');
    t.equal(client.status, 'ready');
    t.equal(await group.direct(group.initialPrimary).hexists(`${prefix}ended`, 'tokens'), 1);

    await kv.close();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    t.equal(client.status, 'end', 'after close() the store does not connect again');
  });

  t.test('what the API answers 503: RedisUnavailableError, not a reply that means a bug', async (t) => {
    t.equal(statusFor(new RedisUnavailableError('Redis is unreachable (reconnecting)')), 503);
    const { kv } = await startGroup(t);
    // A wrong command is not an outage: the store passes Redis's reply on unchanged (a 500).
    await kv.setIfAbsent('text', 'not a number', 600_000);
    const err = await kv.incrementUpTo('text', 1, 10, 600_000).catch((e: unknown) => e);
    t.notOk(err instanceof RedisUnavailableError, 'a script error on a string is not "Redis unavailable"');
    t.equal(statusFor(err), 500);
  });
}
