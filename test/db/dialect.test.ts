import t from 'tap';
import { deleteInBatches, durabilityWarnings, readTimestamp, whereContains } from '../../db/dialect.js';
import { isUniqueViolation } from '../../db/errors.js';
import { connectTestDatabase, TEST_DB_KIND } from '../helpers/test-database.js';

const { db, close } = await connectTestDatabase();
t.teardown(close);
await db.knex.schema.createTable('things', (table) => {
  table.string('id', 36).primary();
  table.string('name', 100).notNullable().unique();
  table.datetime('at', { precision: 3 }).notNullable();
});

t.test(`the dialect helpers behave the same on ${TEST_DB_KIND}`, async (t) => {
  const at = new Date('2026-11-22T10:11:12.345Z');
  const names = ['Plain', '100% sure', 'snake_case', 'back\\slash', 'bang!', 'ÉCOLE'];
  for (const [i, name] of names.entries()) await db.knex('things').insert({ id: `id-${i}`, name, at });
  const search = async (term: string) =>
    (await whereContains(db.knex('things').select('name'), ['name'], term)).map((r: { name: string }) => r.name).sort();
  t.same(await search('PLAIN'), ['Plain'], 'case-insensitive');
  t.same(await search('%'), ['100% sure'], '% literal');
  t.same(await search('_'), ['snake_case'], '_ literal');
  t.same(await search('\\'), ['back\\slash'], 'backslash literal');
  t.same(await search('!'), ['bang!'], 'the escape character itself is literal');
  t.same(await search('xyz'), []);

  const row = await db.knex('things').where({ id: 'id-0' }).first();
  t.equal(readTimestamp(row.at).toISOString(), at.toISOString(), 'timestamps round-trip with milliseconds in UTC');
  t.equal(
    Number((await db.knex('things').where('at', '>=', at).count({ n: '*' }))[0]!.n),
    names.length,
    'Date bindings compare',
  );

  const err = await db
    .knex('things')
    .insert({ id: 'dup', name: 'Plain', at })
    .catch((e: unknown) => e);
  t.ok(isUniqueViolation(err), 'unique violations are recognised');

  const deleted = await deleteInBatches(db.knex, 'things', () => db.knex('things').select('id'), 4);
  t.equal(deleted, names.length, 'batched delete removes everything in several rounds');
});

t.test('durability warnings reflect the server setting', async (t) => {
  const warnings = await durabilityWarnings(db.knex, db.dialect);
  if (db.dialect === 'sqlite') {
    t.same(warnings, [], 'SQLite durability is set on the connection');
    return;
  }
  const [rows] = await db.knex.raw(`SHOW VARIABLES LIKE 'innodb_flush_log_at_trx_commit'`);
  t.equal(warnings.length, rows[0].Value === '1' ? 0 : 1, `innodb_flush_log_at_trx_commit=${rows[0].Value}`);
});
