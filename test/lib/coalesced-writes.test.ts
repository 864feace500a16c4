import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CoalescedWrites } from '../../lib/spool/coalesced-writes.js';

t.test('writes asked for while one is in flight go out together, at their own offsets', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-writes-'));
  const handle = await open(join(dir, 'f'), 'w+');
  t.teardown(async () => {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let calls = 0;
  const counting = new Proxy(handle, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (prop === 'writev' || prop === 'write') calls++;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const writes = new CoalescedWrites(counting);
  const records = Array.from({ length: 50 }, (_, i) => Buffer.from(`record-${String(i).padStart(2, '0')};`));
  let offset = 0;
  await Promise.all(
    records.map((r) => {
      const at = offset;
      offset += r.length;
      return writes.write(r, at);
    }),
  );
  t.equal(readFileSync(join(dir, 'f'), 'utf8'), records.map(String).join(''), 'every record where it was reserved');
  t.ok(calls <= 2, `50 writes in ${calls} calls`);
  // A gap (a range reserved by an append still running) splits a batch into runs.
  await Promise.all([writes.write(Buffer.from('A'), offset + 5), writes.write(Buffer.from('B'), offset)]);
  const tail = readFileSync(join(dir, 'f')).subarray(offset);
  t.equal(tail[0], 'B'.charCodeAt(0));
  t.equal(tail[5], 'A'.charCodeAt(0));
});
