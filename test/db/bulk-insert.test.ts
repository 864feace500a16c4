import t from 'tap';
import { bulkInsert, bulkInsertObjects } from '../../db/bulk-insert.js';
import { readTimestamp } from '../../db/dialect.js';
import { isUniqueViolation } from '../../db/errors.js';
import { connectTestDatabase, TEST_DB_KIND } from '../helpers/test-database.js';

const { db, close } = await connectTestDatabase();
t.teardown(close);
await db.knex.schema.createTable('bulk_parents', (table) => {
  table.string('id', 36).primary();
});
await db.knex.schema.createTable('bulk_rows', (table) => {
  table.string('id', 36).primary();
  table.string('parent_id', 36).notNullable().references('id').inTable('bulk_parents');
  table.string('name', 100).nullable();
  table.integer('score').nullable();
  table.boolean('flag').notNullable();
  table.datetime('at', { precision: 3 }).notNullable();
});
await db.knex('bulk_parents').insert({ id: 'p' });

const COLUMNS = ['id', 'parent_id', 'name', 'score', 'flag', 'at'] as const;
const at = new Date('2026-11-29T01:02:03.456Z');
const row = (i: number, name: string | null = `name ${i}`) => [`r${i}`, 'p', name, i, i % 2 === 0, at];
const rowsOf = async () =>
  (await db.knex('bulk_rows').select('*').orderBy('score')) as Array<{
    id: string;
    name: string | null;
    score: number;
    flag: unknown;
    at: unknown;
  }>;

t.beforeEach(async () => {
  await db.knex('bulk_rows').delete();
});

t.test(`many rows in full statements and a remainder, values as knex would write them (${TEST_DB_KIND})`, async (t) => {
  // 2,345 rows: several full statements on both dialects (500 / 1,000 rows) and a remainder.
  const rows = Array.from({ length: 2345 }, (_, i) => row(i, i === 7 ? null : `n'ame "${i}" \\ é`));
  await db.knex.transaction((trx) => bulkInsert(trx, { table: 'bulk_rows', columns: COLUMNS, rows }));
  const stored = await rowsOf();
  t.equal(stored.length, 2345, 'every row is written once');
  t.equal(stored[3]!.name, `n'ame "3" \\ é`, 'quotes, backslashes and non-ASCII are bound, not spliced');
  t.equal(stored[7]!.name, null, 'null stays null');
  t.same(
    stored.slice(0, 2).map((r) => Boolean(r.flag)),
    [true, false],
    'booleans are stored as the column reads them back',
  );
  t.equal(readTimestamp(stored[0]!.at).toISOString(), at.toISOString(), 'dates keep their milliseconds in UTC');
  // The same shape a second time runs the prepared statement again (SQLite) with new values.
  await db.knex.transaction((trx) =>
    bulkInsert(trx, { table: 'bulk_rows', columns: COLUMNS, rows: [row(5000), row(5001)] }),
  );
  t.equal((await rowsOf()).length, 2347);
});

t.test('a conflict either keeps the old row or overwrites the named columns', async (t) => {
  await db.knex.transaction((trx) =>
    bulkInsert(trx, { table: 'bulk_rows', columns: COLUMNS, rows: [row(1, 'old'), row(2, 'old')] }),
  );
  await db.knex.transaction((trx) =>
    bulkInsert(trx, {
      table: 'bulk_rows',
      columns: COLUMNS,
      rows: [row(1, 'new'), row(3, 'new')],
      onConflict: { keys: ['id'], ignore: true },
    }),
  );
  t.same(
    (await rowsOf()).map((r) => [r.id, r.name]),
    [
      ['r1', 'old'],
      ['r2', 'old'],
      ['r3', 'new'],
    ],
    'ignore: the existing row is kept, the new one added',
  );
  await db.knex.transaction((trx) =>
    bulkInsert(trx, {
      table: 'bulk_rows',
      columns: COLUMNS,
      rows: [[...row(2, 'merged').slice(0, 3), 99, true, at]],
      onConflict: { keys: ['id'], merge: ['name'] },
    }),
  );
  const merged = (await rowsOf()).find((r) => r.id === 'r2')!;
  t.same([merged.name, merged.score], ['merged', 2], 'merge: only the named columns change');
});

t.test('errors are the driver errors the callers classify, and the transaction rolls back', async (t) => {
  await db.knex.transaction((trx) => bulkInsert(trx, { table: 'bulk_rows', columns: COLUMNS, rows: [row(1)] }));
  const duplicate = await db.knex
    .transaction((trx) => bulkInsert(trx, { table: 'bulk_rows', columns: COLUMNS, rows: [row(2), row(1)] }))
    .catch((err: unknown) => err);
  t.ok(isUniqueViolation(duplicate), 'a taken key is a unique violation');
  t.same(
    (await rowsOf()).map((r) => r.id),
    ['r1'],
    'nothing of the failed statement stays',
  );
  const orphan = await db.knex
    .transaction((trx) =>
      bulkInsert(trx, {
        table: 'bulk_rows',
        columns: COLUMNS,
        rows: [['o1', 'no-such-parent', null, 1, true, at]],
        onConflict: { keys: ['id'], ignore: true },
      }),
    )
    .catch((err: unknown) => err);
  t.ok(orphan instanceof Error, 'an ignored conflict does not hide a foreign-key failure (no INSERT IGNORE)');
  t.equal((await rowsOf()).length, 1);
});

t.test('outside a transaction it opens one: the rows commit together or not at all', async (t) => {
  await bulkInsert(db.knex, { table: 'bulk_rows', columns: COLUMNS, rows: [row(1), row(2)] });
  t.equal((await rowsOf()).length, 2, 'written');
  const err = await bulkInsert(db.knex, { table: 'bulk_rows', columns: COLUMNS, rows: [row(3), row(1)] }).catch(
    (e: unknown) => e,
  );
  t.ok(isUniqueViolation(err), 'a taken key fails the call');
  t.equal((await rowsOf()).length, 2, 'and row 3 of the same call is not left behind');
  await bulkInsert(db.knex, { table: 'bulk_rows', columns: COLUMNS, rows: [] });
  t.equal((await rowsOf()).length, 2, 'no rows, nothing to do');
});

t.test('objects of one shape: the first row names the columns', async (t) => {
  await bulkInsertObjects(db.knex, 'bulk_rows', [
    { id: 'o1', parent_id: 'p', name: 'first', score: 1, flag: true, at },
    { id: 'o2', parent_id: 'p', name: null, score: 2, flag: false, at },
  ]);
  t.same(
    (await rowsOf()).map((r) => [r.id, r.name, Boolean(r.flag)]),
    [
      ['o1', 'first', true],
      ['o2', null, false],
    ],
  );
});

t.test('more statement shapes than the caches hold: every insert still writes its rows', async (t) => {
  // 300 sizes (past 64 prepared statements and 256 SQL texts), then the first size again.
  let id = 0;
  await db.knex.transaction(async (trx) => {
    for (let size = 1; size <= 300; size++)
      await bulkInsert(trx, {
        table: 'bulk_rows',
        columns: COLUMNS,
        rows: Array.from({ length: size }, () => row(id++)),
      });
    await bulkInsert(trx, { table: 'bulk_rows', columns: COLUMNS, rows: [row(id++)] });
  });
  t.equal((await rowsOf()).length, id, `${id} rows`);
});
