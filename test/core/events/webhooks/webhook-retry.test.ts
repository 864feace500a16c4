import t from 'tap';
import { nextRetryAt } from '../../../../core/events/webhooks/webhook-retry.js';
import { loadConfig } from '../../../../lib/config/load-config.js';

const now = new Date('2026-11-23T00:00:00.000Z');

t.test('the default schedule: 8 attempts over about 27 hours', async (t) => {
  const schedule = loadConfig({ MAILROOM_CONFIG: '' }).webhooks.retrySchedule;
  t.same(schedule, [5, 300, 1800, 7200, 18000, 36000, 36000]);
  let at = now;
  let attempts = 1;
  for (
    let next = nextRetryAt(schedule, attempts, at, () => 0.5);
    next;
    next = nextRetryAt(schedule, attempts, at, () => 0.5)
  ) {
    at = next;
    attempts++;
  }
  t.equal(attempts, 8, 'first attempt and seven retries');
  const hours = (at.getTime() - now.getTime()) / 3600_000;
  t.ok(hours > 27 && hours < 28, `last attempt after ${hours.toFixed(1)} h`);
});

t.test('delays by attempt number with +-10% jitter; none after the schedule', async (t) => {
  const schedule = [10, 100];
  t.equal(nextRetryAt(schedule, 1, now, () => 0)!.getTime() - now.getTime(), 9000);
  t.equal(nextRetryAt(schedule, 1, now, () => 1)!.getTime() - now.getTime(), 11000);
  t.equal(nextRetryAt(schedule, 2, now, () => 0.5)!.getTime() - now.getTime(), 100_000);
  t.equal(nextRetryAt(schedule, 3, now), null);
  t.equal(nextRetryAt(schedule, 0, now), null);
});
