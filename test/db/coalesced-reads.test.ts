import t from 'tap';
import { CoalescedReads } from '../../db/coalesced-reads.js';

t.test('reads asked while one is in flight share the next query, each answered in order', async (t) => {
  const batches: number[][] = [];
  const reads = new CoalescedReads<number, number>(async (keys) => {
    batches.push(keys);
    await new Promise((resolve) => setTimeout(resolve, 10));
    return keys.map((k) => k * 2);
  });
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => reads.read(i)));
  t.same(
    answers,
    Array.from({ length: 30 }, (_, i) => i * 2),
  );
  t.same(batches[0], [0], 'an idle reader queries at once');
  t.equal(batches.length, 2, 'the 29 asked meanwhile went together');
});

t.test('batches are bounded, and a failed query fails only its own batch', async (t) => {
  let calls = 0;
  const reads = new CoalescedReads<number, number>(async (keys) => {
    calls++;
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (keys.includes(13)) throw new Error('boom');
    return keys;
  }, 5);
  const results = await Promise.allSettled(Array.from({ length: 16 }, (_, i) => reads.read(i)));
  t.equal(calls, 4, '1 alone, then 15 in batches of 5');
  const failed = results.flatMap((r, i) => (r.status === 'rejected' ? [i] : []));
  t.same(failed, [11, 12, 13, 14, 15], 'only the batch holding the failing key');
  t.same(await reads.read(99), 99, 'later reads work');
});
