import type { Knex } from 'knex';
import type { Dialect } from './connection.js';

/**
 * Every difference between SQLite and MySQL the code has to know about, in one place.
 * Repositories use these helpers instead of branching on the dialect themselves.
 */

/** The dialect of a knex instance, for the few queries that differ (row locking). */
export function dialectOfKnex(knex: Knex): Dialect {
  const client = (knex.client as { config?: { client?: unknown } }).config?.client;
  return client === 'mysql2' || client === 'mysql' ? 'mysql' : 'sqlite';
}

/**
 * How many rows one multi-row INSERT of `columns` columns may carry: knex writes SQLite's as a
 * compound SELECT (at most 500 terms, 32,766 variables), MySQL's as VALUES lists (bounded only
 * by max_allowed_packet; 60,000 values keep a statement to a few MB).
 */
export function rowsPerInsert(knex: Knex, columns: number): number {
  return dialectOfKnex(knex) === 'sqlite'
    ? Math.min(500, Math.floor(32_000 / columns))
    : Math.max(1, Math.floor(60_000 / columns));
}

/** SQLite hands timestamps back as epoch milliseconds, MySQL as Date objects. */
export function readTimestamp(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'number') return new Date(value);
  if (typeof value === 'string')
    return /^\d+$/.test(value)
      ? new Date(Number(value))
      : new Date(value.includes('T') ? value : `${value.replace(' ', 'T')}Z`);
  throw new TypeError(`not a timestamp: ${String(value)}`);
}

export function readNullableTimestamp(value: unknown): Date | null {
  return value === null || value === undefined ? null : readTimestamp(value);
}

export function isoOrNull(value: Date | null): string | null {
  return value ? value.toISOString() : null;
}

/** Both dialects store booleans as 0/1. */
export function readBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

/** JSON lives in text columns on both dialects. */
export function readJson<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined) return fallback;
  if (typeof value === 'string') return JSON.parse(value) as T;
  return value as T;
}

export function writeJson(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/**
 * Escapes % _ and ! so a search term matches literally inside LIKE ... ESCAPE '!'. The escape
 * character is ! rather than a backslash because MySQL also treats a backslash in a string
 * literal as an escape, SQLite does not; ! means the same to both.
 */
export function likeContains(term: string): string {
  return `%${term.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

/**
 * Case-insensitive substring match where % and _ are ordinary characters. LOWER() on both sides
 * because SQLite's LIKE and MySQL's collations disagree on case folding.
 */
export function whereContains(query: Knex.QueryBuilder, columns: string[], term: string): Knex.QueryBuilder {
  const pattern = likeContains(term);
  return query.where((builder) => {
    for (const column of columns) builder.orWhereRaw(`LOWER(??) LIKE ? ESCAPE '!'`, [column, pattern]);
  });
}

/**
 * Case-insensitive prefix match, % and _ ordinary characters. A column that already holds lower
 * case (`lowerCased`) is compared as it is, so an index on it can serve the range (LIKE 'abc%'
 * is a range scan on both databases); any other is lowered on both sides, as whereContains does.
 */
export function whereStartsWith(
  query: Knex.QueryBuilder,
  column: string,
  term: string,
  options: { lowerCased?: boolean } = {},
): Knex.QueryBuilder {
  const pattern = `${term.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
  return options.lowerCased
    ? query.whereRaw(`?? LIKE ? ESCAPE '!'`, [column, pattern])
    : query.whereRaw(`LOWER(??) LIKE ? ESCAPE '!'`, [column, pattern]);
}

/** Warnings about durability settings that would lose acknowledged writes on a crash. */
export async function durabilityWarnings(knex: Knex, dialect: Dialect): Promise<string[]> {
  if (dialect !== 'mysql') return [];
  const [rows] = (await knex.raw(`SHOW VARIABLES LIKE 'innodb_flush_log_at_trx_commit'`)) as [Array<{ Value: string }>];
  const value = rows[0]?.Value;
  return value === '1'
    ? []
    : [
        `innodb_flush_log_at_trx_commit is ${value ?? 'unknown'}, not 1: MySQL may lose acknowledged writes (accepted emails, API keys) on a crash. Set innodb_flush_log_at_trx_commit=1.`,
      ];
}

/**
 * Deletes the rows `select` finds, `batch` at a time, until none are left; returns how many.
 * Small batches keep retention jobs from holding long locks on hot tables (and SQLite has no
 * DELETE ... LIMIT).
 */
export async function deleteInBatches(
  knex: Knex,
  table: string,
  select: () => Knex.QueryBuilder,
  batch: number,
): Promise<number> {
  let total = 0;
  for (;;) {
    const ids = (await select().limit(batch)) as Array<{ id: string }>;
    if (ids.length === 0) return total;
    total += await knex(table)
      .whereIn(
        'id',
        ids.map((row) => row.id),
      )
      .delete();
    if (ids.length < batch) return total;
  }
}

/**
 * Inserts rows, or adds their `counters` to the row already holding the same unique key
 * (`keys`): SQLite's ON CONFLICT ... DO UPDATE reads the new values as `excluded.col`,
 * MySQL's ON DUPLICATE KEY UPDATE as `VALUES(col)`.
 */
export async function upsertAdding(
  knex: Knex,
  table: string,
  rows: Array<Record<string, unknown>>,
  keys: string[],
  counters: readonly string[],
): Promise<void> {
  if (rows.length === 0) return;
  const mysql = dialectOfKnex(knex) === 'mysql';
  const merge = Object.fromEntries(
    counters.map((column) => [
      column,
      mysql ? knex.raw('?? + VALUES(??)', [column, column]) : knex.raw('??.?? + excluded.??', [table, column, column]),
    ]),
  );
  await knex(table).insert(rows).onConflict(keys).merge(merge);
}

/**
 * A table read through a named index: `FORCE INDEX` on MySQL/MariaDB, the table alone on SQLite
 * (whose planner already takes the index that serves both the condition and the ORDER BY). For
 * keyset pages: with `team_id = ? AND id < ? ORDER BY id DESC LIMIT n`, MariaDB may pick `ref`
 * access on team_id over the range on (team_id, id) when both estimates are alike, then walks the
 * team's rows from its newest, fetching each, until it passes the cursor: a page in the middle of a
 * team of 200,000 emails took 200 ms instead of 0.5 ms.
 */
export function tableUsingIndex(knex: Knex, table: string, index: string): Knex.QueryBuilder {
  return dialectOfKnex(knex) === 'mysql' ? knex(knex.raw('?? FORCE INDEX (??)', [table, index])) : knex(table);
}
