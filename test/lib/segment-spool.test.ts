import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CoalescedSync } from '../../lib/spool/coalesced-sync.js';
import { SegmentSpool } from '../../lib/spool/segment-spool.js';

t.test('concurrent appends get disjoint ranges and read back exactly', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-spool-'));
  const spool = new SegmentSpool(dir, 64 * 1024);
  t.teardown(async () => {
    await spool.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const records = Array.from({ length: 200 }, (_, i) => Buffer.from(`record ${i} `.repeat(40 * (1 + (i % 50)))));
  const refs = await Promise.all(records.map((record) => spool.append(record)));
  for (const [i, ref] of refs.entries()) {
    const back = await spool.read(ref);
    if (!back?.equals(records[i]!)) t.fail(`record ${i} differs`);
  }
  t.pass('all 200 read back byte for byte');
  const segments = new Set(refs.map((ref) => ref.segment));
  t.ok(segments.size > 1, `rotated into ${segments.size} segments at 64 KB`);
  t.equal(readdirSync(dir).length, segments.size);
  t.equal(await spool.read({ segment: '../etc/passwd', offset: 0, length: 10 }), null, 'names outside the spool are refused');
  t.equal(await spool.read({ segment: 'seg-1-1-abcd.spool', offset: 0, length: 10 }), null, 'unknown segment');
});

t.test('coalesced syncs: concurrent requests share a sync that starts after they asked', async (t) => {
  let syncs = 0;
  let running = 0;
  let overlapping = false;
  const sync = new CoalescedSync(async () => {
    running++;
    if (running > 1) overlapping = true;
    syncs++;
    await new Promise((resolve) => setTimeout(resolve, 20));
    running--;
  });
  await Promise.all(Array.from({ length: 50 }, () => sync.request()));
  t.ok(syncs <= 2, `50 requests, ${syncs} syncs`);
  t.notOk(overlapping, 'never two syncs at once');
  const before = syncs;
  await sync.request();
  t.equal(syncs, before + 1, 'a later request gets its own sync');
});
