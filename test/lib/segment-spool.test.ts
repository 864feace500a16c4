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

t.test('sweep deletes old, unreferenced segments only, never the one being written', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-spool-sweep-'));
  const spool = new SegmentSpool(dir, 1024);
  t.teardown(async () => {
    await spool.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const refs = [];
  for (let i = 0; i < 4; i++) refs.push(await spool.append(Buffer.alloc(800, i)));
  const segments = [...new Set(refs.map((r) => r.segment))];
  t.equal(segments.length, 4, 'one record per segment at this size');
  const kept = segments[1]!;
  const current = segments[3]!;
  const later = Date.now() + 2 * 86_400_000;
  const removed = await spool.sweep(async (segment) => segment === kept, 86_400_000, later);
  t.same(removed.sort(), [segments[0], segments[2]].sort(), 'old and unreferenced: gone');
  t.ok(readdirSync(dir).includes(kept), 'a referenced segment stays');
  t.ok(readdirSync(dir).includes(current), 'the segment being written stays');
  t.same(await spool.sweep(async () => false, 86_400_000, Date.now()), [], 'young segments stay');
  t.ok((await spool.read(refs[1]!))?.equals(Buffer.alloc(800, 1)));
});
