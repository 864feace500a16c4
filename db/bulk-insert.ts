import type { Knex } from 'knex';
import { dialectOfKnex } from './dialect.js';

/**
 * Multi-row INSERTs for writers of thousands of rows per transaction (the CSV import), without
 * knex's query builder in the way. Measured on a 100,000-row import, knex spent a fifth of the
 * worker's time compiling (quoting every identifier per value) and, on SQLite, preparing: it writes
 * SQLite's multi-row insert as a compound SELECT of at most 500 terms and prepares each statement
 * anew. Here the SQL text is built once per shape (table, columns, rows, conflict rule), SQLite
 * gets a VALUES list prepared once per connection and reused for every full chunk, and MySQL gets
 * the same VALUES list through knex.raw (mysql2 formats the values client-side either way).
 */

/** What happens when a row's key is already taken: keep the old row, or overwrite some columns. */
export type OnConflict =
  { keys: readonly string[]; ignore: true } | { keys: readonly string[]; merge: readonly string[] };

export type BulkRows = {
  table: string;
  columns: readonly string[];
  /** One array per row, in `columns` order. */
  rows: ReadonlyArray<readonly unknown[]>;
  onConflict?: OnConflict;
};

/**
 * Rows per statement, by measurement (bench:audience, 100,000 rows × 5 properties, batches of
 * 2,000): on SQLite 12,100-12,900 rows/s from 50 to 500 rows per statement (flat within the
 * noise; 500 makes the fewest statements, 4,000 variables with 8 columns, far under SQLite's
 * 32,766); on MariaDB 8,800-9,500 rows/s from 250 to 4,000 (mariadbd's work per row is the
 * limit, not round trips): 1,000 rows, a few hundred KB, keeps a statement far under
 * max_allowed_packet.
 */
const ROWS_PER_STATEMENT = { sqlite: 500, mysql: 1000 } as const;

type SqliteStatement = { run(...bindings: unknown[]): unknown };
type SqliteConnection = { prepare(sql: string): SqliteStatement };

/** A map of at most `capacity` entries that forgets the least recently used one first. */
class RecentlyUsed<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string, make: () => V): V {
    let value = this.entries.get(key);
    if (value !== undefined) this.entries.delete(key);
    else value = make();
    // Re-inserted last: a Map iterates in insertion order, so the first key is the least recent.
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }
}

/**
 * Prepared statements of each SQLite connection and SQL texts, by shape, the most recently used
 * kept: full chunks repeat (an import's 500-row statements), group commits come in every size,
 * and a cache that stopped taking entries when full would keep whichever shapes came first.
 */
const prepared = new WeakMap<object, RecentlyUsed<SqliteStatement>>();
const sqlTexts = new RecentlyUsed<string>(256);

/**
 * Inserts `rows` in multi-row statements. Inside a transaction it runs on that transaction's
 * connection; given the pool, it opens one (the rows then commit together).
 */
export async function bulkInsert(knex: Knex, insert: BulkRows): Promise<void> {
  if (insert.rows.length === 0) return;
  if (!knex.isTransaction) return knex.transaction((trx) => bulkInsert(trx, insert));
  const dialect = dialectOfKnex(knex);
  const size = ROWS_PER_STATEMENT[dialect];
  if (dialect === 'mysql') {
    for (let i = 0; i < insert.rows.length; i += size) {
      const part = insert.rows.slice(i, i + size);
      await knex.raw(insertSql('mysql', insert, part.length), part.flat() as Knex.RawBinding[]);
    }
    return;
  }
  // The transaction's own connection: knex hands the one it runs on to whoever asks within it.
  const connection = (await knex.client.acquireConnection()) as SqliteConnection;
  for (let i = 0; i < insert.rows.length; i += size) {
    const part = insert.rows.slice(i, i + size);
    statementFor(connection, insertSql('sqlite', insert, part.length)).run(sqliteValues(part));
  }
}

/** Rows given as objects of one shape (the same keys in the same order): the first row's keys are the columns. */
export async function bulkInsertObjects(
  knex: Knex,
  table: string,
  rows: ReadonlyArray<Record<string, unknown>>,
  onConflict?: OnConflict,
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  await bulkInsert(knex, { table, columns, rows: rows.map((row) => columns.map((c) => row[c])), onConflict });
}

function statementFor(connection: SqliteConnection, sql: string): SqliteStatement {
  let statements = prepared.get(connection);
  if (!statements) prepared.set(connection, (statements = new RecentlyUsed(64)));
  return statements.get(sql, () => connection.prepare(sql));
}

/** better-sqlite3 binds numbers, strings, bigints, buffers and null: dates and booleans as knex stores them. */
function sqliteValues(rows: ReadonlyArray<readonly unknown[]>): unknown[] {
  const values: unknown[] = [];
  for (const row of rows)
    for (const value of row)
      values.push(
        value instanceof Date
          ? value.valueOf()
          : typeof value === 'boolean'
            ? Number(value)
            : value === undefined
              ? null
              : value,
      );
  return values;
}

function insertSql(dialect: 'sqlite' | 'mysql', insert: BulkRows, rows: number): string {
  const key = `${dialect} ${insert.table} ${insert.columns.join(',')} ${rows} ${JSON.stringify(insert.onConflict ?? null)}`;
  return sqlTexts.get(key, () => {
    const quote = dialect === 'mysql' ? (name: string) => `\`${name}\`` : (name: string) => `"${name}"`;
    const tuple = `(${insert.columns.map(() => '?').join(',')})`;
    return (
      `INSERT INTO ${quote(insert.table)} (${insert.columns.map(quote).join(',')}) VALUES ` +
      Array.from({ length: rows }, () => tuple).join(',') +
      conflictClause(dialect, insert.onConflict, quote)
    );
  });
}

function conflictClause(
  dialect: 'sqlite' | 'mysql',
  conflict: OnConflict | undefined,
  quote: (name: string) => string,
): string {
  if (!conflict) return '';
  if (dialect === 'sqlite') {
    const target = `(${conflict.keys.map(quote).join(',')})`;
    return 'ignore' in conflict
      ? ` ON CONFLICT ${target} DO NOTHING`
      : ` ON CONFLICT ${target} DO UPDATE SET ${conflict.merge.map((c) => `${quote(c)} = excluded.${quote(c)}`).join(', ')}`;
  }
  // Not INSERT IGNORE: that would also turn a foreign-key or truncation error into a warning.
  const columns = 'ignore' in conflict ? [conflict.keys[0]!] : conflict.merge;
  const set =
    'ignore' in conflict
      ? (c: string) => `${quote(c)} = ${quote(c)}`
      : (c: string) => `${quote(c)} = VALUES(${quote(c)})`;
  return ` ON DUPLICATE KEY UPDATE ${columns.map(set).join(', ')}`;
}
