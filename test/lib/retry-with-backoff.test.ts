import t from 'tap';
import { retryWithBackoff } from '../../lib/retry-with-backoff.js';

t.test('tries once more per delay, then gives the last failure', async (t) => {
  let calls = 0;
  const heard: number[] = [];
  await t.rejects(
    retryWithBackoff(
      async () => {
        calls++;
        throw new Error(`failure ${calls}`);
      },
      [1, 2, 3],
      (_err, retryInMs) => heard.push(retryInMs),
    ),
    { message: 'failure 4' },
  );
  t.equal(calls, 4);
  t.same(heard, [1, 2, 3], 'each retried failure is heard with its delay');
});

t.test('stops at the first success', async (t) => {
  let calls = 0;
  const value = await retryWithBackoff(async () => {
    calls++;
    if (calls < 3) throw new Error('not yet');
    return 'done';
  }, [1, 1, 1, 1]);
  t.equal(value, 'done');
  t.equal(calls, 3);
});
