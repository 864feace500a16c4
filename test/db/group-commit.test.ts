import t from 'tap';
import { GroupCommitter } from '../../db/group-commit.js';
import { connectTestDatabase, TEST_DB_KIND } from '../helpers/test-database.js';

const { db, close } = await connectTestDatabase();
t.teardown(close);
await db.knex.schema.createTable('items', (table) => {
  table.string('id', 36).primary();
});

function countingKnex() {
  const counter = { transactions: 0 };
  const knex = new Proxy(db.knex, {
    get(target, prop, receiver) {
      if (prop === 'transaction') {
        return (work: never) => {
          counter.transactions++;
          return target.transaction(work);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
  return { knex, counter };
}

t.test(`concurrent writes share transactions (${TEST_DB_KIND})`, async (t) => {
  const { knex, counter } = countingKnex();
  const committer = new GroupCommitter(knex, 2);
  const ids = await Promise.all(Array.from({ length: 60 }, (_, i) => committer.run(async (trx) => {
    await trx('items').insert({ id: `group-${i}` });
    return i;
  })));
  t.same(ids, Array.from({ length: 60 }, (_, i) => i), 'each caller gets its own result');
  t.equal(Number((await db.knex('items').where('id', 'like', 'group-%').count({ n: '*' }))[0]!.n), 60);
  t.ok(counter.transactions <= 4, `60 writes in ${counter.transactions} transactions`);
});

t.test(`a failing item fails alone; the rest of its group commits (${TEST_DB_KIND})`, async (t) => {
  const { knex } = countingKnex();
  const committer = new GroupCommitter(knex, 1);
  await db.knex('items').insert({ id: 'taken' });
  const results = await Promise.allSettled(
    Array.from({ length: 20 }, (_, i) => committer.run((trx) => trx('items').insert({ id: i === 7 ? 'taken' : `iso-${i}` }))),
  );
  t.same(results.map((r) => r.status).filter((s) => s === 'rejected').length, 1, 'only the conflicting write fails');
  t.equal(results[7]!.status, 'rejected');
  t.equal(Number((await db.knex('items').where('id', 'like', 'iso-%').count({ n: '*' }))[0]!.n), 19, 'the other 19 landed');
});
