import t from 'tap';
import { NOT_A_CHANGE, watchWrites } from '../../db/write-watcher.js';
import { connectTestDatabase, TEST_DB_KIND } from '../helpers/test-database.js';

const { db, close } = await connectTestDatabase();
t.teardown(close);
await db.knex.schema.createTable('watched', (table) => {
  table.string('id', 36).primary();
  table.string('name', 36);
});
await db.knex.schema.createTable('other', (table) => table.string('id', 36).primary());
let writes = 0;
watchWrites(db.knex, ['watched'], () => writes++);

t.test(`every write to a watched table is seen, before and after it runs (${TEST_DB_KIND})`, async (t) => {
  writes = 0;
  await db.knex('watched').insert({ id: 'a', name: 'x' });
  t.equal(writes, 2, 'insert: when sent and when answered');
  await db.knex('watched').where({ id: 'a' }).update({ name: 'y' });
  await db.knex.transaction((trx) => trx('watched').where({ id: 'a' }).delete());
  await db.knex.raw('UPDATE watched SET name = ?', ['z']);
  t.equal(writes, 8, 'update, delete in a transaction, raw SQL');
});

t.test(`reads, other tables and writes marked not a change are not (${TEST_DB_KIND})`, async (t) => {
  writes = 0;
  await db.knex('watched').select('*');
  await db.knex('other').insert({ id: 'b' });
  await db.knex('watched').queryContext(NOT_A_CHANGE).insert({ id: 'c', name: 'x' });
  t.equal(writes, 0);
});

t.test(`a failed write counts too: the change may have happened (${TEST_DB_KIND})`, async (t) => {
  writes = 0;
  await t.rejects(db.knex('watched').insert({ id: 'c', name: 'dup' }));
  t.equal(writes, 2);
});
