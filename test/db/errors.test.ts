import t from 'tap';
import { isConflict, isConnectionLost, isDependencyDown, isDiskFull, isUniqueViolation } from '../../db/errors.js';
import { retryConflicts } from '../../db/retry.js';
import { connectTestDatabase } from '../helpers/test-database.js';

const coded = (code: string) => Object.assign(new Error(code), { code });

t.test('each driver and OS code answers exactly its predicate', async (t) => {
  const table: Array<[string, (err: unknown) => boolean]> = [
    ['ER_DUP_ENTRY', isUniqueViolation],
    ['SQLITE_CONSTRAINT_UNIQUE', isUniqueViolation],
    ['SQLITE_CONSTRAINT_PRIMARYKEY', isUniqueViolation],
    ['ER_LOCK_DEADLOCK', isConflict],
    ['ER_LOCK_WAIT_TIMEOUT', isConflict],
    ['SQLITE_BUSY', isConflict],
    ['ECONNREFUSED', isConnectionLost],
    ['PROTOCOL_CONNECTION_LOST', isConnectionLost],
    ['ER_CON_COUNT_ERROR', isConnectionLost],
    ['ECONNRESET', isConnectionLost],
    ['ER_SERVER_SHUTDOWN', isConnectionLost],
    ['ER_CONNECTION_KILLED', isConnectionLost],
    // Galera: a member outside the primary component (1047).
    ['ER_UNKNOWN_COM_ERROR', isConnectionLost],
    ['ENOSPC', isDiskFull],
    ['EDQUOT', isDiskFull],
    ['SQLITE_FULL', isDiskFull],
    ['ER_RECORD_FILE_FULL', isDiskFull],
  ];
  const predicates = [isUniqueViolation, isConflict, isConnectionLost, isDiskFull];
  for (const [code, predicate] of table) {
    for (const other of predicates) t.equal(other(coded(code)), other === predicate, `${code}: ${other.name}`);
  }
  for (const err of [null, undefined, 'text', new Error('plain'), coded('ER_PARSE_ERROR')])
    t.notOk(predicates.some((p) => p(err)) || isDependencyDown(err), String(err));
});

t.test(
  'dependency down: connection lost, disk full, SQLite busy, a pool time-out, a conflict past the retries; not a bad query',
  async (t) => {
    // A conflict that outlasted the retries (Galera certification refusing the same rows again
    // and again on a busy cluster) is "try again later", not a fault of the request.
    for (const code of [
      'ECONNREFUSED',
      'ENOSPC',
      'SQLITE_BUSY',
      'ER_RECORD_FILE_FULL',
      'ER_LOCK_DEADLOCK',
      'ER_UNKNOWN_COM_ERROR',
    ])
      t.ok(isDependencyDown(coded(code)), code);
    t.ok(isDependencyDown(Object.assign(new Error('pool'), { name: 'KnexTimeoutError' })));
    for (const code of ['ER_DUP_ENTRY', 'ER_PARSE_ERROR']) t.notOk(isDependencyDown(coded(code)), code);
  },
);

t.test('the real driver reports a duplicate key as a unique violation', async (t) => {
  const { db, close } = await connectTestDatabase();
  t.teardown(close);
  await db.knex.schema.createTable('dup_probe', (table) => table.string('id').primary());
  await db.knex('dup_probe').insert({ id: 'a' });
  const err = await db
    .knex('dup_probe')
    .insert({ id: 'a' })
    .catch((e: unknown) => e);
  t.ok(isUniqueViolation(err), `recognised: ${(err as { code?: string }).code}`);
});

t.test('retryConflicts: conflicts are retried up to the limit, anything else at once', async (t) => {
  let calls = 0;
  t.equal(await retryConflicts(async () => (++calls < 3 ? Promise.reject(coded('ER_LOCK_DEADLOCK')) : 'done')), 'done');
  t.equal(calls, 3, 'two conflicts, then success');
  calls = 0;
  await t.rejects(
    retryConflicts(async () => {
      calls++;
      throw coded('SQLITE_BUSY');
    }, 4),
    { code: 'SQLITE_BUSY' },
  );
  t.equal(calls, 4, 'gives up after the attempts');
  calls = 0;
  await t.rejects(
    retryConflicts(async () => {
      calls++;
      throw coded('ER_DUP_ENTRY');
    }),
    { code: 'ER_DUP_ENTRY' },
  );
  t.equal(calls, 1, 'not a conflict: no retry');
});
