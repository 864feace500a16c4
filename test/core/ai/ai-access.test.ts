import t from 'tap';
import { AiAccess, creditMonth } from '../../../core/ai/ai-access.js';
import { findPlan } from '../../../core/platform/plans/plan.catalog.js';
import { EMPTY_BRAND_KIT, type Team } from '../../../core/platform/teams/team.types.js';
import { UsageLedger } from '../../../core/platform/usage/usage-ledger.js';
import { GroupCommitter } from '../../../db/group-commit.js';
import { migrateLatest } from '../../../db/migrate.js';
import { UnitsOfWork } from '../../../db/unit-of-work.js';
import { AppError } from '../../../lib/errors.js';
import { newId } from '../../../lib/ids.js';
import { MemoryKeyValueStore } from '../../../lib/kv/memory-kv.js';
import { RedisKeyValueStore } from '../../../lib/kv/redis-kv.js';
import { systemClock } from '../../../lib/clock.js';
import { movableClock } from '../../helpers/clock.js';
import { APP_USES_REDIS, connectTestDatabase, TEST_REDIS_URL } from '../../helpers/test-database.js';

/**
 * The AI routes' checks over time, at the service: the per-team bucket of 10 AI requests a
 * minute (the in-process store reads the injected clock, so a minute passes without waiting;
 * Redis keeps its own clock, so there only the refusal is checked), and credits per calendar
 * month (UTC) in the real usage ledger, spent through a unit of work.
 */
const database = await connectTestDatabase();
t.teardown(() => database.close());
const knex = database.db.knex;
await migrateLatest(knex);
const units = new UnitsOfWork(new GroupCommitter(knex));
const usage = new UsageLedger(knex, systemClock);

function team(plan = 'free', aiAssistEnabled = true): Team {
  const now = new Date();
  return {
    id: newId(),
    name: 'AI',
    slug: `ai-${newId()}`,
    riskState: 'normal',
    plan: findPlan(plan)!,
    sendingTier: 0,
    senderName: null,
    postalAddress: null,
    aiAssistEnabled,
    brandKit: EMPTY_BRAND_KIT,
    createdAt: now,
    updatedAt: now,
  };
}

async function refusal(call: () => Promise<unknown>): Promise<AppError | undefined> {
  try {
    await call();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  return undefined;
}

t.test('10 AI requests a minute per team, refilled one every 6 seconds (in-process store, moved clock)', async (t) => {
  const clock = movableClock();
  const kv = new MemoryKeyValueStore({ now: () => clock.now().getTime() });
  const access = new AiAccess({ configured: true, clock, kv, usage });
  const busy = team('unlimited');
  for (let i = 1; i <= 10; i++) t.ok(await access.admit(busy), `request ${i} admitted`);
  const eleventh = await refusal(() => access.admit(busy));
  t.match(eleventh, { statusCode: 429, errorName: 'rate_limit_exceeded', headers: { 'retry-after': '6' } });
  t.ok(await access.admit(team('unlimited')), 'another team has its own bucket');
  clock.advanceTo(clock.now().getTime() + 3_000);
  t.match(await refusal(() => access.admit(busy)), { headers: { 'retry-after': '3' } }, 'half-way to the next token');
  clock.advanceTo(clock.now().getTime() + 3_000);
  t.ok(await access.admit(busy), 'one more after 6 seconds');
  t.match(await refusal(() => access.admit(busy)), { errorName: 'rate_limit_exceeded' });
  clock.advanceTo(clock.now().getTime() + 60_000);
  for (let i = 1; i <= 10; i++) t.ok(await access.admit(busy), `a minute later, request ${i}`);
  t.match(await refusal(() => access.admit(busy)), { errorName: 'rate_limit_exceeded' }, 'and the 11th again refused');
});

t.test(
  'the bucket in Redis, shared by every process',
  { skip: !APP_USES_REDIS && 'no Redis in this pass' },
  async (t) => {
    const kv = new RedisKeyValueStore(TEST_REDIS_URL, `mailroom-test:${process.pid}:${newId()}:`);
    t.teardown(() => kv.close());
    const clock = movableClock();
    const busy = team('unlimited');
    // Two services over the same store: two API processes.
    const one = new AiAccess({ configured: true, clock, kv, usage });
    const two = new AiAccess({ configured: true, clock, kv, usage });
    for (let i = 1; i <= 10; i++) t.ok(await (i % 2 ? one : two).admit(busy), `request ${i}`);
    const refused = await refusal(() => one.admit(busy));
    t.match(refused, { errorName: 'rate_limit_exceeded' });
    const retryAfter = Number(refused?.headers?.['retry-after']);
    t.ok(retryAfter >= 5 && retryAfter <= 6, `retry-after ${retryAfter}`);
  },
);

t.test('credits per calendar month (UTC), spent with the unit of work that answers', async (t) => {
  // A clock that stands still where it is set: the month's last millisecond must not run out.
  let now = new Date();
  const clock = { now: () => now, advanceTo: (at: number) => void (now = new Date(at)) };
  const access = new AiAccess({ configured: true, clock, kv: new MemoryKeyValueStore(), usage });
  const free = team('free');
  const start = await access.credits(free);
  t.same(start, { limit: 25, used: 0, remaining: 25 });
  await units.run(async (unit) => {
    const after = access.spend(unit, free.id, 'request-1', start);
    t.same(after, { limit: 25, used: 1, remaining: 24 }, 'after the request');
  });
  t.same(await access.credits(free), { limit: 25, used: 1, remaining: 24 }, 'committed with the unit');
  const dropped = units.begin();
  access.spend(dropped, free.id, 'request-2', await access.credits(free));
  t.same(await access.credits(free), { limit: 25, used: 1, remaining: 24 }, 'a unit that never commits spends nothing');
  await knex.transaction((trx) =>
    usage.record(trx, { teamId: free.id, category: 'ai_credits', quantity: 24, at: clock.now() }),
  );
  const spent = await refusal(() => access.admit(free));
  t.match(spent, { statusCode: 422, errorName: 'validation_error', message: /25 AI credits for this month are spent/ });
  const { to } = creditMonth(clock.now());
  clock.advanceTo(to.getTime() - 1);
  t.match(await refusal(() => access.admit(free)), { statusCode: 422 }, 'the last millisecond of the month');
  clock.advanceTo(to.getTime());
  t.same(await access.admit(free), { limit: 25, used: 0, remaining: 25 }, 'the 1st of the next month, 00:00 UTC');
});

t.test('checks 1 and 2', async (t) => {
  const clock = movableClock();
  const off = new AiAccess({ configured: false, clock, kv: new MemoryKeyValueStore(), usage });
  t.match(await refusal(async () => off.assertEnabled(team())), {
    statusCode: 503,
    errorName: 'service_unavailable',
    message: /AI is not configured/,
  });
  const on = new AiAccess({ configured: true, clock, kv: new MemoryKeyValueStore(), usage });
  t.match(await refusal(async () => on.assertEnabled(team('free', false))), {
    statusCode: 403,
    errorName: 'invalid_permission',
  });
  t.equal(await refusal(async () => on.assertEnabled(team())), undefined);
});

t.test('creditMonth', async (t) => {
  t.same(creditMonth(new Date('2026-12-31T23:59:59.999Z')), {
    from: new Date('2026-12-01T00:00:00Z'),
    to: new Date('2027-01-01T00:00:00Z'),
  });
  t.same(creditMonth(new Date('2027-02-01T00:00:00Z')).to, new Date('2027-03-01T00:00:00Z'));
});
