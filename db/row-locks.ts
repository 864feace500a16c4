import type { Knex } from 'knex';
import { dialectOfKnex } from './dialect.js';

/**
 * Whether the database has one writer at a time (SQLite, in-process): a conditional UPDATE per
 * row is then exact, costs no round trip, and needs no row lock; with MySQL/MariaDB, callers
 * lock rows and write groups in one statement instead.
 */
export function hasOneWriter(knex: Knex): boolean {
  return dialectOfKnex(knex) === 'sqlite';
}

/**
 * Locks rows of `table` by id in the caller's transaction (MySQL/MariaDB) and returns their
 * `columns`. The lock goes through the primary key only (FORCE INDEX): locking through a
 * secondary index would take next-key locks on it, which concurrent updates of that column run
 * into (deadlocks under load). `skipLocked`: a row another transaction holds is left out, never
 * waited for. Not for a database with one writer (see hasOneWriter), which has no row locks.
 */
export async function lockRowsById<Row>(
  trx: Knex.Transaction,
  table: string,
  ids: string[],
  columns: string[],
  options: { skipLocked?: boolean } = {},
): Promise<Row[]> {
  if (ids.length === 0) return [];
  const sql = `SELECT ${columns.map(() => '??').join(', ')} FROM ?? FORCE INDEX (PRIMARY) WHERE id IN (${ids.map(() => '?').join(', ')}) FOR UPDATE${options.skipLocked ? ' SKIP LOCKED' : ''}`;
  const [rows] = (await trx.raw(sql, [...columns, table, ...ids])) as [Row[]];
  return rows;
}

/**
 * A value per row for one UPDATE of many rows: CASE id WHEN ? THEN ? ... ELSE column END (rows
 * not listed keep their value). Plain SQL both dialects run.
 */
export function valueById(
  trx: Knex.Transaction,
  column: string,
  values: Array<[id: string, value: unknown]>,
): Knex.Raw {
  const whens = values.map(() => 'WHEN ? THEN ?').join(' ');
  return trx.raw(`CASE ?? ${whens} ELSE ?? END`, ['id', ...values.flat(), column] as Knex.RawBinding[]);
}

/** A condition that each listed row's `column` equals its own expected value (used in one UPDATE's WHERE). */
export function whereEachEquals(
  query: Knex.QueryBuilder,
  column: string,
  expected: Array<[id: string, value: unknown]>,
): Knex.QueryBuilder {
  return query.whereRaw(`?? = CASE ?? ${expected.map(() => 'WHEN ? THEN ?').join(' ')} END`, [
    column,
    'id',
    ...expected.flat(),
  ] as Knex.RawBinding[]);
}
