import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import t from 'tap';
import { CopiedSpool } from '../../db/copied-spool.js';
import { migrateLatest } from '../../db/migrate.js';
import { connectTestDatabase, TEST_DB_KIND } from '../helpers/test-database.js';

/**
 * spool.copyToDatabase: two nodes (two spool directories) on one database. What one node
 * appends, the other reads from the copy; records larger than a part are split and joined
 * back; copies made at once share commits; the sweep deletes only unreferenced, old copies.
 */
const { db, dataDir, close } = await connectTestDatabase();
t.teardown(close);
await migrateLatest(db.knex);
const nodeA = new CopiedSpool(join(dataDir, 'node-a', 'spool'), db.knex);
const nodeB = new CopiedSpool(join(dataDir, 'node-b', 'spool'), db.knex);
t.teardown(async () => {
  await nodeA.close();
  await nodeB.close();
});

t.test(`a record appended on one node is read on another (${TEST_DB_KIND})`, async (t) => {
  const records = Array.from({ length: 40 }, (_, i) => randomBytes(1000 + i * 37));
  // Concurrent appends, as concurrent API requests make them.
  const refs = await Promise.all(records.map((record) => nodeA.append(record)));
  for (const [i, ref] of refs.entries()) t.same(await nodeB.read(ref), records[i], `record ${i} read back whole`);
  const [{ rows }] = (await db.knex('spool_copies').count({ rows: '*' })) as [{ rows: number | string }];
  t.equal(Number(rows), records.length, 'one copy row per small record');
  t.same(await nodeA.read(refs[0]!), records[0], 'the writing node reads its own segment');
});

t.test('a record larger than a part is split and joined back', async (t) => {
  const big = randomBytes(9 * 1024 * 1024 + 123);
  const ref = await nodeA.append(big);
  const parts = await db.knex('spool_copies').where({ segment: ref.segment, offset: ref.offset }).count({ n: '*' });
  t.equal(Number(parts[0]!.n), 10, 'ten parts of at most 1 MiB');
  t.ok((await nodeB.read(ref))?.equals(big), 'the other node reads the whole record');
});

t.test('an unknown or damaged reference reads as null', async (t) => {
  const ref = await nodeA.append(Buffer.from('short record'));
  t.equal(await nodeB.read({ ...ref, offset: ref.offset + 1 }), null, 'no copy at that offset');
  t.equal(await nodeB.read({ ...ref, length: ref.length + 1 }), null, 'a length the copy does not have');
  t.equal(await nodeB.read({ segment: 'seg-nowhere.spool', offset: 0, length: 3 }), null, 'an unknown segment');
});

t.test('the sweep deletes old copies of unreferenced segments only', async (t) => {
  const kept = await nodeB.append(Buffer.from('kept'));
  const segments = ((await db.knex('spool_copies').distinct('segment')) as Array<{ segment: string }>).map(
    (row) => row.segment,
  );
  t.ok(segments.includes(kept.segment), 'node B copied its own record');
  const referenced = async (segment: string) => segment === kept.segment;
  await nodeB.sweep(referenced, 60_000, Date.now());
  t.ok(await nodeA.read(kept), 'nothing is swept while it is young');
  await nodeB.sweep(referenced, 0, Date.now() + 1000);
  const left = ((await db.knex('spool_copies').distinct('segment')) as Array<{ segment: string }>).map(
    (row) => row.segment,
  );
  t.same(left, [kept.segment], "only the referenced segment's copies are left");
  t.same(await nodeA.read(kept), Buffer.from('kept'), 'and still read from the copy on the other node');
});
