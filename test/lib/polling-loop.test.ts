import t from 'tap';
import { startPollingLoop } from '../../lib/polling-loop.js';

t.test('ticks again at once while work is found, sleeps when none, wakes early', async (t) => {
  const results = [3, 2, 0];
  let ticks = 0;
  const loop = startPollingLoop({
    tick: async () => results[ticks++] ?? 0,
    hasRoom: () => true,
    pollMs: 60_000,
    onError: () => undefined,
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(ticks, 3, 'three ticks back to back, then asleep (poll is a minute)');
  loop.wake();
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(ticks, 4, 'a wake-up ends the sleep');
  await loop.stop();
});

t.test('a wake-up during a tick is not lost; errors are reported and the loop goes on', async (t) => {
  let ticks = 0;
  const errors: unknown[] = [];
  let loopRef: { wake(): void } | null = null;
  const loop = startPollingLoop({
    tick: async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      ticks++;
      if (ticks === 1) loopRef?.wake();
      if (ticks === 2) throw new Error('boom');
      return 0;
    },
    hasRoom: () => true,
    pollMs: 60_000,
    onError: (err) => errors.push(err),
  });
  loopRef = loop;
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.ok(ticks >= 2, 'the wake-up that came during the first tick gave a second tick at once');
  t.equal(errors.length, 1, 'the failing tick was reported');
  await loop.stop();
  const after = ticks;
  await new Promise((resolve) => setTimeout(resolve, 30));
  t.equal(ticks, after, 'no tick after stop');
});
