import t from 'tap';
import { pooledRandomBytes } from '../../lib/crypto/random-pool.js';
import { isUuidV7, newId } from '../../lib/ids.js';

t.test('ids are v7 UUIDs, unique and increasing within the process (also within one millisecond)', async (t) => {
  const ids = Array.from({ length: 20_000 }, () => newId());
  t.ok(ids.every(isUuidV7), 'all v7');
  t.equal(new Set(ids).size, ids.length, 'unique');
  t.ok(
    ids.every((id, i) => i === 0 || id > ids[i - 1]!),
    'each sorts after the one before',
  );
  const ms = parseInt(ids.at(-1)!.replace(/-/g, '').slice(0, 12), 16);
  t.ok(Math.abs(ms - Date.now()) < 5000, 'the leading 48 bits are the creation time in ms');
});

t.test('pooled random bytes: fresh values across refills, small sizes only', async (t) => {
  const seen = new Set(Array.from({ length: 1000 }, () => Buffer.from(pooledRandomBytes(8)).toString('hex')));
  t.equal(seen.size, 1000, '1000 draws of 8 bytes (two refills of the pool), no repeat');
  t.throws(() => pooledRandomBytes(1024), RangeError);
});
