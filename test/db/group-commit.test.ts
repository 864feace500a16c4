import t from 'tap';
import type { Knex } from 'knex';
import { commitPart, GroupCommitter } from '../../db/group-commit.js';
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
  const ids = await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      committer.run(async (trx) => {
        await trx('items').insert({ id: `group-${i}` });
        return i;
      }),
    ),
  );
  t.same(
    ids,
    Array.from({ length: 60 }, (_, i) => i),
    'each caller gets its own result',
  );
  t.equal(Number((await db.knex('items').where('id', 'like', 'group-%').count({ n: '*' }))[0]!.n), 60);
  t.ok(counter.transactions <= 4, `60 writes in ${counter.transactions} transactions`);
});

t.test(`a failing item fails alone; the rest of its group commits (${TEST_DB_KIND})`, async (t) => {
  const { knex } = countingKnex();
  const committer = new GroupCommitter(knex, 1);
  await db.knex('items').insert({ id: 'taken' });
  const results = await Promise.allSettled(
    Array.from({ length: 20 }, (_, i) =>
      committer.run((trx) => trx('items').insert({ id: i === 7 ? 'taken' : `iso-${i}` })),
    ),
  );
  t.same(results.map((r) => r.status).filter((s) => s === 'rejected').length, 1, 'only the conflicting write fails');
  t.equal(results[7]!.status, 'rejected');
  t.equal(
    Number((await db.knex('items').where('id', 'like', 'iso-%').count({ n: '*' }))[0]!.n),
    19,
    'the other 19 landed',
  );
});

t.test(
  `parts of one key are written by one flush per group; an item's parts commit together (${TEST_DB_KIND})`,
  async (t) => {
    const committer = new GroupCommitter(db.knex, 1);
    const flushes: Record<string, number[]> = { a: [], b: [] };
    const flushFor = (key: 'a' | 'b') => async (trx: Knex.Transaction, ids: string[]) => {
      flushes[key]!.push(ids.length);
      await trx('items').insert(ids.map((id) => ({ id })));
    };
    const flushA = flushFor('a');
    const flushB = flushFor('b');
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        committer.commit([commitPart('a', `part-a-${i}`, flushA), commitPart('b', `part-b-${i}`, flushB)]),
      ),
    );
    t.equal(
      Number((await db.knex('items').where('id', 'like', 'part-%').count({ n: '*' }))[0]!.n),
      80,
      'all 80 rows landed',
    );
    t.ok(flushes.a!.length <= 3, `40 payloads of a in ${flushes.a!.length} flushes (${flushes.a!.join(', ')})`);
    t.same(flushes.a, flushes.b, 'b flushed alongside a, group by group');
  },
);

t.test(`a failing item's parts fail with it, the group's other items commit (${TEST_DB_KIND})`, async (t) => {
  const committer = new GroupCommitter(db.knex, 1);
  await db.knex('items').insert({ id: 'pair-taken' });
  const insert = async (trx: Knex.Transaction, ids: string[]) =>
    void (await trx('items').insert(ids.map((id) => ({ id }))));
  const results = await Promise.allSettled(
    Array.from({ length: 10 }, (_, i) =>
      committer.commit([
        commitPart('log', `pair-log-${i}`, insert),
        commitPart('row', i === 4 ? 'pair-taken' : `pair-row-${i}`, insert),
      ]),
    ),
  );
  t.same(
    results.flatMap((r, i) => (r.status === 'rejected' ? [i] : [])),
    [4],
  );
  const logs = (await db.knex('items').where('id', 'like', 'pair-log-%').select('id')).map((r: { id: string }) => r.id);
  t.equal(logs.length, 9, "every log but the failed item's");
  t.notOk(logs.includes('pair-log-4'), 'the failed row took its log with it');
});
