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
  t.equal(
    await spool.read({ segment: '../etc/passwd', offset: 0, length: 10 }),
    null,
    'names outside the spool are refused',
  );
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

t.test(
  'reads through kept descriptors: records appended later by another writer, many segments, swept segments',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-spool-readers-'));
    const writer = new SegmentSpool(dir, 1024);
    const reader = new SegmentSpool(dir, 1024);
    t.teardown(async () => {
      await writer.close();
      await reader.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const first = await writer.append(Buffer.from('first record'));
    t.equal((await reader.read(first))?.toString(), 'first record');
    // Same segment, appended after the reader opened it: a kept descriptor sees the new bytes.
    const second = await writer.append(Buffer.from('second record'));
    t.equal(second.segment, first.segment);
    t.equal((await reader.read(second))?.toString(), 'second record');
    t.equal(
      await reader.read({ ...second, offset: second.offset + 5 }),
      null,
      'a range past the end of the segment is not a record',
    );

    // More segments than descriptors kept open: every record still reads back, concurrently too.
    const records = Array.from({ length: 40 }, (_, i) => Buffer.alloc(700, i));
    const refs = [];
    for (const record of records) refs.push(await writer.append(record));
    t.ok(new Set(refs.map((r) => r.segment)).size >= 20, 'spread over many segments');
    const back = await Promise.all(refs.map((ref) => reader.read(ref)));
    t.ok(
      back.every((buffer, i) => buffer?.equals(records[i]!)),
      'all 40 read back byte for byte',
    );

    // A segment the reader itself swept is gone for it, descriptor included.
    const old = refs[0]!;
    const removed = await reader.sweep(async (segment) => segment !== old.segment, 0, Date.now() + 1000);
    t.same(removed, [old.segment]);
    t.equal(await reader.read(old), null, 'a swept segment reads as gone');
  },
);
