import t from 'tap';
import { restoredFactor } from '../../../../core/sending/shaping/deliverability-actions.service.js';
import { warmupDay } from '../../../../core/sending/shaping/ip-warmup.service.js';
import { movableClock } from '../../../helpers/clock.js';
import { startTestApp } from '../../../helpers/test-app.js';

/**
 * Reactions, warm-up allowances and the complaint watch against a real database and store:
 * what each decides, with the appliance's clock moved instead of waiting.
 */
const clock = movableClock();
const app = await startTestApp({
  clock,
  config: {
    mta: {
      shaping: { restoreSeconds: 600, minimumFactor: 0.25, pauseSeconds: 900, settleSeconds: 0, minimumDelivered: 100 },
      warmup: { schedule: { default: [10, 20], gmail: [100, 200, 400] }, bulkShare: 0.8 },
    },
  },
});
t.teardown(() => app.close());
const { actions, warmup, complaints } = app.runtime.services.shaping;
const gmail = { key: 'gmail', name: 'gmail' };
const RATE_REPLY = '421-4.7.28 [192.0.2.1] Our system has detected an unusual rate of unsolicited mail.';

t.test('a "slow down" reply halves the share, again and again, then pauses', async (t) => {
  const first = await actions.react(gmail, '192.0.2.1', RATE_REPLY);
  t.match(first, { kind: 'slow', factor: 0.5, provider: 'gmail', egressIp: '192.0.2.1', ruleId: 'gmail-rate-limit' });
  t.equal(first!.endsAt.getTime() - first!.startedAt.getTime(), 600_000, 'back to whole after one restore period');
  const second = await actions.react(gmail, '192.0.2.1', RATE_REPLY);
  t.match(second, { kind: 'slow', factor: 0.25 });
  t.equal(second!.endsAt.getTime() - second!.startedAt.getTime(), 1_200_000, 'two doublings back');
  const third = await actions.react(gmail, '192.0.2.1', RATE_REPLY);
  t.match(third, { kind: 'pause', factor: null }, 'below the minimum share it pauses');
  t.equal(third!.endsAt.getTime() - third!.startedAt.getTime(), 900_000);
  t.equal(await actions.react(gmail, '192.0.2.1', RATE_REPLY), null, 'a paused pair draws no new action');
  const state = await actions.inForce();
  const now = clock.now();
  t.ok(state.pause('gmail', '192.0.2.1', now), 'the pause is in force');
  t.equal(state.pause('gmail', '192.0.2.9', now), null, 'for that address only');
  t.equal(state.factor('yahoo', '192.0.2.1', now), 1, 'and that provider only');

  // After the pause: back at the minimum share, doubling back every restore period.
  clock.advanceTo(third!.endsAt.getTime() + 1000);
  const after = await fresh();
  t.equal(after.pause('gmail', '192.0.2.1', clock.now()), null, 'the pause ended on its own');
  t.equal(after.factor('gmail', '192.0.2.1', clock.now()), 0.25, 'the address comes back at the minimum share');
  clock.advanceTo(third!.endsAt.getTime() + 601_000);
  t.equal((await fresh()).factor('gmail', '192.0.2.1', clock.now()), 0.5, 'and doubles back');
  clock.advanceTo(third!.endsAt.getTime() + 1_201_000);
  t.equal((await fresh()).factor('gmail', '192.0.2.1', clock.now()), 1, 'until whole again');
});

t.test('a reply no rule matches draws nothing', async (t) => {
  t.equal(await actions.react(gmail, '192.0.2.2', '550 5.1.1 no such user'), null);
  t.equal(await actions.react(gmail, '192.0.2.2', '250 OK'), null);
});

t.test('the factor doubles back per restore period', async (t) => {
  const action = {
    id: 'x',
    kind: 'slow' as const,
    provider: 'p',
    egressIp: 'i',
    teamId: null,
    factor: 0.125,
    ruleId: null,
    reason: '',
    startedAt: new Date(0),
    endsAt: new Date(0),
  };
  t.equal(restoredFactor(action, new Date(0), 1000), 0.125);
  t.equal(restoredFactor(action, new Date(1999), 1000), 0.25);
  t.equal(restoredFactor(action, new Date(10_000), 1000), 1);
});

t.test('warm-up: day by day allowances per provider, and broadcast mail leaves room for transactional', async (t) => {
  t.equal(warmupDay('2026-01-01', new Date('2026-01-01T23:59:59Z')), 1);
  t.equal(warmupDay('2026-01-01', new Date('2026-01-03T00:00:00Z')), 3);
  t.equal(warmup.allowance('gmail', 2), 200);
  t.equal(warmup.allowance(null, 1), 10, 'other destinations follow the default table');
  t.equal(warmup.allowance('yahoo', 1), 20, 'a provider the configuration does not name keeps the built-in table');
  t.equal(warmup.allowance('gmail', 4), null, 'past the table the address is warm');
  await warmup.start('192.0.2.50');
  const row = (await warmup.warming()).get('192.0.2.50')!;
  t.ok(row, 'the address is warming');
  const takeBulk = () => warmup.take(row, gmail, 10, 'bulk');
  for (let i = 0; i < 8; i++) t.same(await takeBulk(), { allowed: true });
  t.same(await takeBulk(), { allowed: false, allowance: 100 }, 'broadcast mail stops at 80% of the allowance');
  t.same(await warmup.take(row, gmail, 20, 'transactional'), { allowed: true }, 'transactional mail takes the rest');
  t.same(await warmup.take(row, gmail, 1, 'transactional'), { allowed: false, allowance: 100 });
  const [status] = await warmup.status(['gmail']);
  t.match(status, { address: '192.0.2.50', day: 1, days: 28, sentToday: 100 });
  t.match(
    status!.providers.find((p) => p.provider === 'gmail'),
    { allowance: 100, sent: 100 },
  );
  t.ok(await warmup.stop('192.0.2.50'));
  t.equal((await warmup.warming()).size, 0, 'stopped: the address is warm');
});

t.test("a team's marketing is suspended at a provider when its complaint rate passes the threshold", async (t) => {
  // 100 delivered (the minimum), then complaints: the first is 1% > 0.3%.
  await complaints.delivered('team-a', 'domain:complainers.test', 100);
  t.ok(await complaints.complained('team-a', 'someone@complainers.test'), 'suspended');
  const state = await fresh();
  const suspension = state.suspension('team-a', 'domain:complainers.test', clock.now());
  t.match(suspension, { kind: 'suspend_marketing', teamId: 'team-a', egressIp: null, ruleId: 'complaint-rate' });
  t.match(suspension!.reason, /complaint rate 1\.00% \(1 of 100 delivered\)/);
  t.equal(suspension!.endsAt.getTime() - suspension!.startedAt.getTime(), 24 * 3600_000);
  t.equal(state.suspension('team-b', 'domain:complainers.test', clock.now()), null, 'other teams send on');
  t.notOk(await complaints.complained('team-a', 'other@complainers.test'), 'one suspension at a time');
  await complaints.delivered('team-c', 'domain:big.test', 50);
  t.notOk(await complaints.complained('team-c', 'x@big.test'), 'below the minimum volume nothing is decided');
});

t.test('the operator lifts an action', async (t) => {
  const action = await actions.react(
    { key: 'domain:lift.test', name: null },
    '192.0.2.3',
    '421 4.7.0 Too many connections',
  );
  t.ok(action);
  t.ok(await actions.end(action!.id));
  t.equal((await fresh()).factor('domain:lift.test', '192.0.2.3', clock.now()), 1);
  t.notOk(await actions.end(action!.id), 'ending twice changes nothing');
});

/** The actions in force as of now (the 2 s per-process cache skipped). */
async function fresh() {
  actions.invalidate();
  return actions.inForce();
}
